import {
  advancePixRecurrenceClock,
  cancelPixRecurrence,
  openPixCycle,
  openPixRecurrence,
  simulatePixRecurrence,
  type OpenPixCycle,
  type OpenPixRecurrence,
  type PixRecurrence,
  type RecurrenceSimulation,
} from '@gateway/contracts';
import type { MessageContext } from '@gateway/messaging';
import type { RailCaller } from './rail-caller';

/**
 * Pix Automático at the PIX adapter, which owns each subscription's recurrence at the PSP (packages/contracts
 * recurrence-messages.ts). Every call is made outside any transaction; its message id is derived from the command being
 * handled and the step (or, for a cycle, from the cycle's payment id), so a retry reaches the adapter as the same
 * message and never opens a second recurrence or `cobr`.
 */
export class PixRecurrences {
  constructor(private readonly caller: RailCaller) {}

  open(recurrence: OpenPixRecurrence, context: MessageContext): Promise<PixRecurrence> {
    return this.caller.call(openPixRecurrence, recurrence, context, 'open-recurrence');
  }

  /** Answers the payment ids of the cycles the PSP did not cancel (their outcome there stands; none from an older adapter). */
  async cancel(subscriptionId: string, context: MessageContext): Promise<string[]> {
    const answer = await this.caller.call(
      cancelPixRecurrence,
      { subscription_id: subscriptionId },
      context,
      'cancel-recurrence',
    );
    return answer.kept_payment_ids ?? [];
  }

  /** Opens one cycle's `cobr`; its message id is the cycle's own, whoever opens it (a scheduler pass, an advance). */
  async openCycle(cycle: OpenPixCycle): Promise<{ txid: string }> {
    return this.caller.callAs(openPixCycle, cycle, `cycle-open:${cycle.payment_id}`);
  }

  async simulate(subscriptionId: string, outcome: RecurrenceSimulation, messageId: string): Promise<void> {
    await this.caller.callAs(simulatePixRecurrence, { subscription_id: subscriptionId, outcome }, messageId);
  }

  /** Sandbox: moves the recurrence's clock at the PSP to `to`; what falls due by then happens before the answer. */
  async advance(subscriptionId: string, to: string): Promise<void> {
    await this.caller.callAs(
      advancePixRecurrenceClock,
      { subscription_id: subscriptionId, to },
      `recurrence-advance:${subscriptionId}:${to}`,
    );
  }
}
