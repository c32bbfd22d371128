import type { DataSource } from 'typeorm';
import { cryptoRequestClosed, type SimulateCryptoOutcome } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import { TestWalletShortOfFunds, type SandboxWallet } from '../clients/sandbox-wallet';
import { tokenBaseUnitsForBrl } from '../domain/quote';
import { parseRatio } from '../domain/rational';
import { closeOpenRequest, lockRequest, moveRequestWindowEnd } from '../persistence';
import { openRequestOrRefuse } from './shared/request-refusals';

export interface SimulationDependencies {
  dataSource: DataSource;
  uow: UnitOfWork;
  /** null in production: every simulation is refused. */
  wallet: SandboxWallet | null;
  /** The receiving wallet the test wallet pays. */
  recipient: string;
  confirmationGraceMs: number;
}

/**
 * Sandbox outcomes that go through the real flow: `paid` makes the test wallet send the transfer (the detector then
 * finds it), `expired` moves the window into the past, beyond the confirmation grace (the expiry worker then closes it
 * on its next pass), `failed` closes at once.
 * The wallet pays outside any transaction; what follows commits with the inbox row, so a redelivered command answers
 * the first result without paying again. Without a sandbox wallet (production) every simulation is refused.
 */
export async function simulateCryptoOutcome(
  { dataSource, uow, wallet, recipient, confirmationGraceMs }: SimulationDependencies,
  command: SimulateCryptoOutcome,
  context: MessageContext,
): Promise<{ accepted: true }> {
  if (!wallet) throw new CommandError('NOT_FOUND', 'Simulação disponível apenas no sandbox.');
  const stored = await uow.storedResult<{ accepted: true }>(context);
  if (stored) return stored.value;
  const request = await openRequestOrRefuse(dataSource.manager, command.payment_id);
  if (command.outcome === 'paid') {
    const amountBaseUnits =
      command.amount_centavos === null
        ? request.amountBaseUnits - request.receivedBaseUnits
        : tokenBaseUnitsForBrl(command.amount_centavos, parseRatio(request.quoteRate), request.decimals);
    const signature = await wallet
      .pay({ recipient, mint: request.mint, reference: request.reference, amountBaseUnits })
      .catch((err: unknown) => {
        // A permanent refusal, not a passing fault: the same amount would fail the same way again.
        if (err instanceof TestWalletShortOfFunds) {
          throw new CommandError(
            'INVALID_AMOUNT',
            'A carteira de teste não tem saldo para pagar esse valor.',
          );
        }
        context.logger.warn({ err: String(err) }, 'sandbox wallet could not pay');
        throw new CommandError(
          'SERVICE_UNAVAILABLE',
          'A carteira de teste não conseguiu enviar o pagamento.',
        );
      });
    context.logger.info({ reference: request.reference, signature }, 'simulated payment sent');
  }
  return uow.once(context, async (tx) => {
    if (command.outcome === 'expired') {
      await moveRequestWindowEnd(
        tx.manager,
        request.reference,
        new Date(Date.now() - confirmationGraceMs - 1000),
      );
    } else if (command.outcome === 'failed') {
      // Locked and read again: the detector may have recorded a transfer since.
      const current = await lockRequest(tx.manager, request.reference);
      if (current?.status === 'open') {
        await closeOpenRequest(tx.manager, current.reference, 'failed');
        await tx.emit(cryptoRequestClosed, {
          payment_id: current.paymentId,
          reference: current.reference,
          reason: 'failed',
          received_base_units: current.receivedBaseUnits.toString(),
        });
      }
    }
    return { accepted: true as const };
  });
}
