import type { DataSource } from 'typeorm';
import type { SimulateSubscription } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import type { Rails } from '../clients';
import { isRunning, todayOf } from '../domain/subscription';
import {
  findSubscription,
  lockOpenCycles,
  lockSubscription,
  markPayerAnswerAsked,
  saveSubscription,
} from '../persistence';
import { wallToday } from './shared/subscription-events';
import { cycleDueDate } from '../domain/subscription';

const ACCEPTED = { accepted: true } as const;

export interface SimulatePayerBankDeps {
  dataSource: DataSource;
  uow: UnitOfWork;
  rails: Rails;
  appEnv: 'sandbox' | 'production';
}

/**
 * Sandbox only: the payer's bank acts on a subscription, for real at the PSP simulator, so the subscription changes
 * through the same events as in production. `authorize`, `reject` (a subscription still waiting for it) and
 * `payer_cancel` are asked of the adapter at once. `fail_next_cycle` is too when a cycle is open and not yet due;
 * otherwise it is kept on the subscription and sent when the next cycle opens, so `pay_next_cycle` (cycles are debited
 * by default) only clears one kept that way: a failure already sent to the PSP stays.
 */
export async function simulatePayerBank(
  deps: SimulatePayerBankDeps,
  command: SimulateSubscription,
  context: MessageContext,
): Promise<{ accepted: true }> {
  if (deps.appEnv !== 'sandbox') throw new CommandError('NOT_FOUND', 'Recurso não encontrado.');
  const subscription = await findSubscription(
    deps.dataSource.manager,
    command.subscription_id,
    command.business_id,
  );
  if (!subscription) throw new CommandError('NOT_FOUND', 'Assinatura não encontrada.');
  const pending = subscription.status === 'pending_authorization';
  const allowed =
    command.outcome === 'authorize' || command.outcome === 'reject'
      ? pending
      : isRunning(subscription.status);
  if (!allowed)
    throw new CommandError(
      'INVALID_STATUS',
      `Operação não permitida: a assinatura está com status ${subscription.status}.`,
    );
  const messageId = `${context.envelope.id}:simulate`;
  switch (command.outcome) {
    case 'authorize':
    case 'reject':
      // A clock move asked next waits at the send day for the answer, on its way as an event (see nextStop).
      await markPayerAnswerAsked(deps.dataSource.manager, subscription.id);
      await deps.rails.recurrences.simulate(subscription.id, command.outcome, messageId);
      return ACCEPTED;
    case 'payer_cancel':
      await deps.rails.recurrences.simulate(subscription.id, command.outcome, messageId);
      return ACCEPTED;
    case 'fail_next_cycle':
    case 'pay_next_cycle': {
      const failing = command.outcome === 'fail_next_cycle';
      const sendNow = await deps.uow.run({}, async (tx) => {
        const locked = (await lockSubscription(tx.manager, subscription.id))!;
        const today = todayOf(locked, wallToday());
        const openNotDue = (await lockOpenCycles(tx.manager, locked.id)).some(
          (cycle) => cycleDueDate(locked.startDate, locked.interval, cycle.cycle!) > today,
        );
        if (failing && openNotDue) return true;
        locked.failNextCycle = failing;
        await saveSubscription(tx.manager, locked);
        return false;
      });
      if (sendNow) await deps.rails.recurrences.simulate(subscription.id, 'fail_next_cycle', messageId);
      return ACCEPTED;
    }
  }
}
