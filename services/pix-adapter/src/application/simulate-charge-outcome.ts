import type { DataSource } from 'typeorm';
import { pixChargeClosed, type SimulatePixOutcome } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import { endActiveCharge, moveExpiryToPast } from '../persistence/charge-store';
import { unpaidPixOf } from '../persistence/received-pix-store';
import type { ChargePsp } from '../clients/psp/psp-accounts';
import { activeChargeOf, cobChangeFailure } from './shared/active-charge';

export interface SimulateOutcomeDeps {
  dataSource: DataSource;
  uow: UnitOfWork;
  psp: ChargePsp;
  appEnv: 'sandbox' | 'production';
  /** Called after an `expired` simulation commits, so the sweeper closes the charge now. */
  onExpiryMoved: () => void;
}

/**
 * Sandbox only, and without shortcuts: `paid` has the PSP simulator pay the cob (its callback then confirms it),
 * `failed` has the PSP remove the cob, `expired` moves the charge's clock past its window for the sweeper. The PSP is
 * called outside any transaction; what follows commits with the inbox row, so a redelivered command answers the
 * first result without calling the PSP again.
 */
export async function simulateChargeOutcome(
  deps: SimulateOutcomeDeps,
  command: SimulatePixOutcome,
  context: MessageContext,
): Promise<{ accepted: true }> {
  if (deps.appEnv !== 'sandbox') throw new CommandError('NOT_FOUND', 'Recurso não encontrado.');
  const stored = await deps.uow.storedResult<{ accepted: true }>(context);
  if (stored) return stored.value;
  const charge = await activeChargeOf(deps.dataSource.manager, command.payment_id);
  if (command.outcome === 'paid') {
    const amount = command.amount_centavos;
    // A PSP refuses another amount into a fixed-amount cob: the charge first lets the payer choose it.
    if (amount !== null && amount !== charge.amountCentavos)
      await deps.psp.letPayerChooseAmount(charge.txid, charge.amountCentavos).catch(cobChangeFailure);
    await deps.psp.sandboxPay(charge.txid, amount).catch(cobChangeFailure);
  } else if (command.outcome === 'failed') {
    await deps.psp.sandboxRemove(charge.txid).catch(cobChangeFailure);
  }
  const result = await deps.uow.once(context, async (tx) => {
    if (command.outcome === 'failed') {
      // Only a charge still active: one paid or closed meanwhile keeps its outcome.
      if ((await endActiveCharge(tx.manager, charge.txid, 'failed')) === 1) {
        await tx.emit(pixChargeClosed, {
          payment_id: charge.paymentId,
          txid: charge.txid,
          reason: 'failed',
          detail: 'REMOVIDA_PELO_PSP',
          received_pix: await unpaidPixOf(tx.manager, charge.txid),
        });
      }
    } else if (command.outcome === 'expired') {
      await moveExpiryToPast(tx.manager, charge.txid);
    }
    return { accepted: true as const };
  });
  if (command.outcome === 'expired') deps.onExpiryMoved();
  return result;
}
