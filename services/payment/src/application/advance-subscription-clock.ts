import { randomUUID } from 'node:crypto';
import type { AdvanceSubscriptionClock, SubscriptionRecord } from '@gateway/contracts';
import { dayNumber } from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import { cycleSendDay, toSubscriptionRecord } from '../domain/subscription';
import {
  claimClockMove,
  endClockMove,
  findSubscription,
  lockSubscription,
  saveSubscription,
  setClockTarget,
} from '../persistence';
import { openDueCycles, type DueCyclesDeps } from './shared/due-cycles';
import { wallToday } from './shared/subscription-events';

export interface AdvanceClockDeps extends DueCyclesDeps {
  appEnv: 'sandbox' | 'production';
}

/**
 * How far one advance may move a clock (5 years): every cycle on the way is opened, so a bound keeps one advance from
 * opening hundreds of thousands of them (a weekly subscription to 9999-12-31) for days in the background.
 */
export const MAX_CLOCK_ADVANCE_DAYS = 5 * 365 + 1;

/** How long one runner holds a clock's move between two steps before another may take it over. */
export const CLOCK_MOVE_LEASE_MS = 60_000;

/**
 * How long after the sandbox payer's bank was asked to answer an authorization a move still waits for that answer at a
 * send day: it comes as an event within seconds; past this, nobody is answering, and the clock moves on.
 */
export const PAYER_ANSWER_WAIT_MS = 2 * 60_000;

/**
 * Sandbox only: asks for a subscription's clock to move forward to `to` (never back, never more than
 * `MAX_CLOCK_ADVANCE_DAYS` past the clock: INVALID_FIELDS) and answers at
 * once, as Stripe's test clocks do: the move itself (`moveSubscriptionClock`) runs in the background, started here and
 * taken up by the cycle scheduler's passes after a restart, so a year of cycles never holds the caller's request (the
 * gateway gives a command a few seconds). The answer is the subscription as it stands; its `current_date` reaches `to`
 * once the move is done.
 */
export async function advanceSubscriptionClock(
  deps: AdvanceClockDeps,
  command: AdvanceSubscriptionClock,
): Promise<SubscriptionRecord> {
  const notFound = new CommandError('NOT_FOUND', 'Assinatura não encontrada.');
  if (deps.appEnv !== 'sandbox') throw notFound;
  const found = await findSubscription(deps.dataSource.manager, command.subscription_id, command.business_id);
  if (!found || found.clockDate === null) throw notFound;
  if (command.to < found.clockDate)
    throw new CommandError(
      'INVALID_FIELDS',
      `Campos inválidos: to. O relógio da assinatura está em ${found.clockDate} e só avança.`,
    );
  if (dayNumber(command.to)! - dayNumber(found.clockDate)! > MAX_CLOCK_ADVANCE_DAYS)
    throw new CommandError(
      'INVALID_FIELDS',
      `Campos inválidos: to. O relógio da assinatura está em ${found.clockDate} e avança no máximo ${MAX_CLOCK_ADVANCE_DAYS} dias (5 anos) por vez.`,
    );
  await setClockTarget(deps.dataSource.manager, found.id, found.businessId, command.to);
  resumeClockMove(deps, found.id);
  return toSubscriptionRecord(found, wallToday());
}

/**
 * Moves the clock of a subscription whose move waits (asked for, or held up) in the background; a failure is logged,
 * and the scheduler's next pass takes the move up.
 */
export function resumeClockMove(deps: DueCyclesDeps, subscriptionId: string): void {
  void moveSubscriptionClock(deps, subscriptionId).catch((err: unknown) =>
    deps.logger.error({ err, subscriptionId }, 'a subscription clock move failed; the scheduler takes it up'),
  );
}

/**
 * Moves a sandbox subscription's clock to the target an advance asked for, stepping through what falls due on the
 * way, in order: at each send day the clock stops and the cycle is opened (`openDueCycles`, as the scheduler does),
 * after the recurrence's clock at the PSP was moved there (`pix.recurrence.advance.v1`: the payer's bank debits or
 * fails each due cycle as it passes, its outcome arriving as the usual events); finally both clocks reach the target.
 * One runner at a time holds the move (a lease on the row, renewed at each step); every step is safe to repeat, so a
 * runner that died is taken over where the clock stands.
 *
 * The clock never passes a send day whose cycle is not opened: the move stops there, its target kept, and goes on
 * later. A subscription whose payer's bank was just asked to answer its authorization (the answer arrives as an event a
 * moment later) goes on when the answer comes (`resumeClockMove`), or after `PAYER_ANSWER_WAIT_MS` without one; a
 * cycle the adapter did not open (a fault, a refusal that may pass) once its back-off has passed, by the scheduler.
 * Passing either would make the cycles on the way unsendable (past their window) for a reason that is not the
 * merchant's. A subscription nobody was asked to answer for moves freely (nobody authorized it in time).
 */
export async function moveSubscriptionClock(deps: DueCyclesDeps, subscriptionId: string): Promise<void> {
  const { manager } = deps.dataSource;
  const owner = randomUUID();
  if (!(await claimClockMove(manager, subscriptionId, CLOCK_MOVE_LEASE_MS, owner, false))) return;
  try {
    for (;;) {
      const subscription = (await findSubscription(manager, subscriptionId))!;
      const clock = subscription.clockDate!;
      const target = subscription.clockTarget;
      if (target === null || target < clock) break;
      // The next cycle's open is backing off (it failed): the scheduler takes the move up once it may try again.
      if (subscription.status === 'active' && (subscription.cycleOpenRetryAt?.getTime() ?? 0) > Date.now())
        break;
      const stop = nextStop(subscription, target, Date.now());
      if (stop > clock) {
        await deps.rails.recurrences.advance(subscription.id, stop);
        await moveClock(deps, subscription.id, stop);
      }
      const opened = await openDueCycles(deps, subscription.id);
      // Nothing moved and nothing opened: at the target, done; before it, held up at a send day (see above).
      if (stop === clock && opened === 0) {
        if (clock < target)
          deps.logger.info(
            { subscriptionId, clock, status: subscription.status },
            "a subscription clock move waits at a send day: for the payer's answer, or for the cycle to open",
          );
        break;
      }
      if (!(await claimClockMove(manager, subscriptionId, CLOCK_MOVE_LEASE_MS, owner, true))) return;
    }
  } finally {
    await endClockMove(manager, subscriptionId, owner);
  }
}

/**
 * The next day the clock stops at on its way to `to`: the next cycle's send day (not before today) while the
 * subscription runs, or while the payer's answer to its authorization is on its way (asked of the sandbox payer's bank
 * less than `PAYER_ANSWER_WAIT_MS` ago); otherwise `to`.
 */
function nextStop(
  subscription: {
    status: string;
    clockDate: string | null;
    nextDueDate: string | null;
    payerAnswerAskedAt: Date | null;
  },
  to: string,
  now: number,
): string {
  const clock = subscription.clockDate!;
  const candidates = [to];
  const answerOnItsWay =
    subscription.status === 'pending_authorization' &&
    subscription.payerAnswerAskedAt !== null &&
    now - subscription.payerAnswerAskedAt.getTime() < PAYER_ANSWER_WAIT_MS;
  if ((subscription.status === 'active' || answerOnItsWay) && subscription.nextDueDate !== null) {
    const send = cycleSendDay(subscription.nextDueDate);
    candidates.push(send < clock ? clock : send);
  }
  return candidates.reduce((earliest, day) => (day < earliest ? day : earliest));
}

async function moveClock(deps: DueCyclesDeps, subscriptionId: string, to: string): Promise<void> {
  await deps.uow.run({}, async (tx) => {
    const subscription = await lockSubscription(tx.manager, subscriptionId);
    if (!subscription || subscription.clockDate === null || subscription.clockDate >= to) return;
    subscription.clockDate = to;
    await saveSubscription(tx.manager, subscription);
  });
}
