import type { DataSource } from 'typeorm';
import type { GetSubscription, SubscriptionRecord } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import type { Rails } from '../clients';
import { isRunning, todayOf, toSubscriptionRecord } from '../domain/subscription';
import { findSubscription, lockSubscription, saveSubscription } from '../persistence';
import { emitSubscriptionEvent, wallToday } from './shared/subscription-events';
import { cancelCyclesNotYetDue } from './shared/subscription-cycles';

export interface CancelSubscriptionDeps {
  dataSource: DataSource;
  uow: UnitOfWork;
  rails: Rails;
}

/**
 * The merchant cancels: the recurrence is cancelled at the PSP first (`pix.recurrence.cancel.v1`, outside any
 * transaction), then, under the subscription's row lock, it becomes `cancelled` (by the merchant) with
 * `subscription.cancelled`, and its open cycle not yet due is cancelled with it, unless the PSP did not cancel it (its
 * debit day had come, or it was debited and its confirmation is on its way: the sandbox clock here lags the PSP's
 * while it moves): that cycle ends as the PSP says, paid or failed. A cycle confirmed paid first stays so (its
 * confirmation took the payment's lock first); an authorization outcome that ended the subscription
 * meanwhile (the payer cancelled too) is the end it keeps: the answer shows it. When the PSP answers that the
 * recurrence ended already (INVALID_STATUS: the payer cancelled it, or it was rejected or expired there), the merchant
 * is answered INVALID_STATUS and nothing changes here: the subscription ends as the PSP's event says, never as a
 * merchant's cancel. Once per command (inbox).
 */
export async function cancelRunningSubscription(
  deps: CancelSubscriptionDeps,
  command: GetSubscription,
  context: MessageContext,
): Promise<SubscriptionRecord> {
  const stored = await deps.uow.storedResult<SubscriptionRecord>(context);
  if (stored) return stored.value;
  const found = await findSubscription(deps.dataSource.manager, command.subscription_id, command.business_id);
  if (!found) throw notFound();
  if (!isRunning(found.status)) {
    // This command delivered again after its first delivery cancelled the recurrence at the PSP and died before its
    // own commit: the adapter's event of that cancellation (by the merchant) may have ended the subscription first.
    // The merchant's cancel took effect; its answer is the subscription, never a refusal of the cancel it made.
    if (context.attempt > 1 && found.status === 'cancelled' && found.cancelledBy === 'merchant')
      return toSubscriptionRecord(found, wallToday());
    throw notRunning(found.status);
  }
  let keptAtThePsp: string[];
  try {
    keptAtThePsp = await deps.rails.recurrences.cancel(found.id, context);
  } catch (error) {
    // The PSP ended it already (the payer cancelled, the authorization was rejected or expired): that is its end, not
    // the merchant's. Nothing is recorded here; the PSP's event, on the way, ends the subscription and says why.
    if (error instanceof CommandError && error.code === 'INVALID_STATUS') throw endedAtThePsp();
    throw error;
  }
  return deps.uow.once(context, async (tx) => {
    const subscription = await lockSubscription(tx.manager, found.id);
    if (!subscription) throw notFound();
    const today = todayOf(subscription, wallToday());
    if (isRunning(subscription.status)) {
      subscription.status = 'cancelled';
      subscription.cancelledBy = 'merchant';
      subscription.cancellationReason = 'requested';
      subscription.endedAt = new Date();
      subscription.nextCycle = null;
      subscription.nextDueDate = null;
      await saveSubscription(tx.manager, subscription);
      await emitSubscriptionEvent(tx, 'cancelled', subscription);
      await cancelCyclesNotYetDue(tx, subscription, today, new Set(keptAtThePsp));
    }
    return toSubscriptionRecord(subscription, wallToday());
  });
}

const notFound = () => new CommandError('NOT_FOUND', 'Assinatura não encontrada.');
const endedAtThePsp = () =>
  new CommandError(
    'INVALID_STATUS',
    'A recorrência já foi encerrada no PSP (cancelada pelo pagador, rejeitada ou expirada); a assinatura termina como o PSP informar.',
  );
const notRunning = (status: string) =>
  new CommandError('INVALID_STATUS', `A assinatura está ${status} e não pode mais ser cancelada.`);
