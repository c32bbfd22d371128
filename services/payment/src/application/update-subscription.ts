import type { SubscriptionRecord, UpdateSubscription } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import { cycleSendDay, isRunning, todayOf, toSubscriptionRecord } from '../domain/subscription';
import { lockSubscription, saveSubscription } from '../persistence';
import { wallToday } from './shared/subscription-events';

/**
 * The merchant sets what the next cycle of a varying subscription asks (`null`: its minimum again), under the
 * subscription's row lock, once per command (inbox). Refused unless the subscription varies (`minimum_amount`: a fixed
 * one is INVALID_FIELDS) and the amount is at least its minimum (INVALID_FIELDS), and unless it runs with a cycle to
 * come whose send day has not come (INVALID_STATUS): from that day the cycle is being sent to the PSP with the amount it
 * had, and the payment is recorded with what its `cobr` asks. The change holds for that one cycle: the cycle after
 * asks its minimum unless set again. The payer's bank refuses a debit over the maximum the payer authorized, as for any
 * cycle.
 */
export async function updateSubscription(
  uow: UnitOfWork,
  command: UpdateSubscription,
  context: MessageContext,
): Promise<SubscriptionRecord> {
  return uow.once(context, async (tx) => {
    const subscription = await lockSubscription(tx.manager, command.subscription_id, command.business_id);
    if (!subscription) throw new CommandError('NOT_FOUND', 'Assinatura não encontrada.');
    const amount = command.next_cycle_amount_centavos;
    if (subscription.minimumAmountCentavos === null)
      throw new CommandError(
        'INVALID_FIELDS',
        'Campos inválidos: next_cycle_amount. A assinatura tem valor fixo; só uma de valor variável aceita o valor do próximo ciclo.',
      );
    if (amount !== null && amount < subscription.minimumAmountCentavos)
      throw new CommandError(
        'INVALID_FIELDS',
        'Campos inválidos: next_cycle_amount. O valor do ciclo não pode ser menor que o valor mínimo da assinatura.',
      );
    const today = todayOf(subscription, wallToday());
    if (
      !isRunning(subscription.status) ||
      subscription.nextDueDate === null ||
      cycleSendDay(subscription.nextDueDate) <= today
    )
      throw new CommandError(
        'INVALID_STATUS',
        subscription.nextDueDate !== null && isRunning(subscription.status)
          ? `O ciclo ${subscription.nextCycle} já está sendo enviado ao PSP com o valor que tinha.`
          : `A assinatura está ${subscription.status} e não tem ciclo a vir.`,
      );
    subscription.nextCycleAmountCentavos = amount;
    await saveSubscription(tx.manager, subscription);
    return toSubscriptionRecord(subscription, wallToday());
  });
}
