import type { DataSource } from 'typeorm';
import { cryptoRequestClosed, type SimulateCryptoOutcome } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import type { SignedTransfer, TransferFate } from '@gateway/solana-pay-wallet';
import { TestWalletShortOfFunds, type SandboxWallet, type WalletPayment } from '../clients/sandbox-wallet';
import { tokenBaseUnitsForBrl } from '../domain/quote';
import { parseRatio } from '../domain/rational';
import {
  closeOpenRequest,
  findSandboxWalletPayment,
  keepSandboxWalletPayment,
  lockRequest,
  moveRequestWindowEnd,
} from '../persistence';
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
 * the first result without paying again. The wallet's transaction is kept before it is sent (`payOnce`): a delivery of
 * the same command whose first answer was never recorded (the database lost after the wallet paid) does not pay a
 * second time, and is accepted even once that first payment has settled the request. Without a sandbox wallet
 * (production) every simulation is refused.
 */
export async function simulateCryptoOutcome(
  deps: SimulationDependencies,
  command: SimulateCryptoOutcome,
  context: MessageContext,
): Promise<{ accepted: true }> {
  const { dataSource, uow, wallet, recipient, confirmationGraceMs } = deps;
  if (!wallet) throw new CommandError('NOT_FOUND', 'Simulação disponível apenas no sandbox.');
  const stored = await uow.storedResult<{ accepted: true }>(context);
  if (stored) return stored.value;
  const request = await openRequestOrRefuse(dataSource.manager, command.payment_id).catch(
    async (err: unknown) => {
      // This command's own payment, sent by a delivery whose answer was lost, may be what closed the request.
      if (command.outcome === 'paid' && (await paidByThisCommand(deps, context, wallet))) return undefined;
      throw err;
    },
  );
  if (!request) return uow.once(context, async () => ({ accepted: true as const }));
  if (command.outcome === 'paid') {
    const amountBaseUnits =
      command.amount_centavos === null
        ? request.amountBaseUnits - request.receivedBaseUnits
        : tokenBaseUnitsForBrl(command.amount_centavos, parseRatio(request.quoteRate), request.decimals);
    await payOnce(deps, context, wallet, {
      recipient,
      mint: request.mint,
      reference: request.reference,
      amountBaseUnits,
    }).catch((err: unknown) => {
      // A permanent refusal, not a passing fault: the same amount would fail the same way again.
      if (err instanceof TestWalletShortOfFunds) {
        throw new CommandError('INVALID_AMOUNT', 'A carteira de teste não tem saldo para pagar esse valor.');
      }
      context.logger.warn({ err: String(err) }, 'sandbox wallet could not pay');
      throw new CommandError('SERVICE_UNAVAILABLE', 'A carteira de teste não conseguiu enviar o pagamento.');
    });
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

/** Replacing a transaction that can no longer land, more than this many times in one delivery, is a fault. */
const MAX_SIGNINGS = 3;

/**
 * Pays once per command, however often it is delivered: the signed transaction is kept (by message id) before it is
 * sent, then sent and awaited until it is settled. A later delivery finds it: landed, nothing more is paid; landing,
 * it is awaited; unknown to the cluster (never sent, or dropped) while its blockhash is valid, it is sent again as it is
 * (the cluster knows it by its signature); failed or expired, nothing moved and a new one replaces it. Two deliveries
 * racing keep one transaction between them, and only that one is sent. A transaction the cluster refuses at once
 * (preflight) stays kept: every delivery is refused the same way until its blockhash expires, and a new one is signed.
 */
async function payOnce(
  { dataSource }: SimulationDependencies,
  context: MessageContext,
  wallet: SandboxWallet,
  payment: WalletPayment,
): Promise<void> {
  const messageId = context.envelope.id;
  let earlier = await findSandboxWalletPayment(dataSource.manager, messageId);
  for (let signings = 0; signings < MAX_SIGNINGS; signings++) {
    if (earlier) {
      const fate = await wallet.fateOf(earlier);
      const settled =
        fate === 'unknown'
          ? await sentAndSettled(wallet, earlier)
          : fate === 'landing'
            ? await wallet.settledFateOf(earlier)
            : fate;
      if (settled === 'landed') return;
      if (settled === 'landing' || settled === 'unknown') throw notLandedYet(earlier);
    }
    const signed = await wallet.sign(payment);
    if (!(await keepSandboxWalletPayment(dataSource.manager, messageId, signed, earlier))) {
      earlier = await findSandboxWalletPayment(dataSource.manager, messageId);
      continue;
    }
    context.logger.info(
      { reference: payment.reference, signature: signed.signature },
      'simulated payment sent',
    );
    const fate = await sentAndSettled(wallet, signed);
    if (fate === 'landed') return;
    if (fate === 'landing' || fate === 'unknown') throw notLandedYet(signed);
    // Failed on chain or expired unlanded: nothing moved, and a new one replaces it.
    earlier = signed;
  }
  throw new Error(`the test wallet's transaction for ${messageId} was replaced ${MAX_SIGNINGS} times`);
}

/**
 * Sends a transaction as it is and awaits its settled fate. Sending may be refused because it landed already (another
 * delivery sent it) or its blockhash expired: its fate says so; any other refusal is the error.
 */
async function sentAndSettled(wallet: SandboxWallet, signed: SignedTransfer): Promise<TransferFate> {
  try {
    await wallet.send(signed);
  } catch (err) {
    if ((await wallet.fateOf(signed)) === 'unknown') throw err;
  }
  return wallet.settledFateOf(signed);
}

const notLandedYet = (signed: SignedTransfer): Error =>
  new Error(`transaction ${signed.signature} has not landed yet`);

/**
 * Whether this command's own transaction, kept by an earlier delivery, has landed (awaited while landing). One the
 * cluster does not know is not sent now: the request it would pay is closed.
 */
async function paidByThisCommand(
  { dataSource }: SimulationDependencies,
  context: MessageContext,
  wallet: SandboxWallet,
): Promise<boolean> {
  const earlier = await findSandboxWalletPayment(dataSource.manager, context.envelope.id);
  if (!earlier) return false;
  const fate = await wallet.fateOf(earlier);
  return (fate === 'landing' ? await wallet.settledFateOf(earlier) : fate) === 'landed';
}
