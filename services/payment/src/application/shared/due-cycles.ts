import type { DataSource } from 'typeorm';
import { CommandError, type Transaction, type UnitOfWork } from '@gateway/messaging';
import type { Logger } from '@gateway/observability';
import type { Rails } from '../../clients';
import {
  cycleAfter,
  cycleDueDate,
  cyclePaymentId,
  cycleSendDay,
  cycleSendDeadline,
  isRunning,
  todayOf,
} from '../../domain/subscription';
import {
  backOffCycleOpen,
  endCycleOpening,
  findCycleOpening,
  findSubscription,
  lockSubscription,
  markCycleOpening,
  postponeCycleOpening,
  saveSubscription,
  type SubscriptionEntity,
} from '../../persistence';
import type { FeeTerms } from '../../domain/fee';
import { businessFeeRule, type DefaultFees } from './fee-rules';
import { emitSubscriptionEvent, wallToday } from './subscription-events';
import { transitionPayment } from './payment-events';
import { cancelCyclesNotYetDue, cycleAmountOf, insertCyclePayment } from './subscription-cycles';

export interface DueCyclesDeps {
  dataSource: DataSource;
  uow: UnitOfWork;
  rails: Rails;
  defaultFees: DefaultFees;
  logger: Logger;
}

/**
 * Does what is due on an active subscription's today (its own clock in the sandbox): opens each cycle whose send day
 * has come, in order, and expires it once past its `end_date` with no cycle left. A cycle is opened at the adapter
 * first (`pix.cycle.open.v1`, outside any transaction, its message id and `cobr` txid derived from the cycle's payment
 * id, itself derived from the pair), then its payment is inserted under the subscription's row lock (once: the pair
 * is unique), and the subscription moves on only if it still waits for that very cycle: two passes racing (two
 * replicas, a scheduler and an advance) ask the adapter the same question and make one payment. A subscription that
 * ended while its cycle was being opened still gets that cycle's payment, ended as its end ended its other cycles, so
 * no cobr at the PSP is left without a payment. A cycle whose sending window has passed (it would reach the PSP
 * less than 2 days before its due date) is never sent: its payment is recorded `failed` `CYCLE_NOT_SENT` and the
 * subscription goes on to the next cycle; unless it was asked of the adapter and its answer never recorded, when the
 * adapter is asked again first (`settleCycleOpening`), so a cobr it did open gets its payment. Answers how many cycles it moved past (opened or not sent); stops at the
 * first refusal (logged; the subscription backs off, tried again on a later pass).
 */
export async function openDueCycles(deps: DueCyclesDeps, subscriptionId: string): Promise<number> {
  let opened = 0;
  for (;;) {
    const subscription = await findSubscription(deps.dataSource.manager, subscriptionId);
    if (!subscription || subscription.status !== 'active') return opened;
    const today = todayOf(subscription, wallToday());
    const { nextCycle: cycle, nextDueDate: dueDate } = subscription;
    if (cycle === null || dueDate === null) {
      if (subscription.endDate !== null && subscription.endDate < today) await expire(deps, subscriptionId);
      return opened;
    }
    if (cycleSendDay(dueDate) > today) return opened;
    if (cycleSendDeadline(dueDate) < today) {
      // Asked of the adapter and never recorded, its cobr may be at the PSP: the adapter says which before it is
      // recorded as never sent (asked again, the PSP refuses a cycle this late, so none is opened now).
      if ((await findCycleOpening(deps.dataSource.manager, subscriptionId))?.cycle === cycle) {
        const settled = await settleCycleOpening(deps, subscriptionId);
        if (settled === 'postponed') {
          // As a cycle not opened: tried again after a back-off, not on every pass.
          await backOffCycleOpen(deps.dataSource.manager, subscriptionId, cycle);
          return opened;
        }
        if (settled === 'opened') opened += 1;
        continue;
      }
      if (!(await recordCycleNotSent(deps, subscriptionId, cycle))) return opened;
      opened += 1;
      continue;
    }
    const paymentId = cyclePaymentId(subscription.id, cycle);
    const feeRule = await businessFeeRule(
      deps.dataSource.manager,
      deps.defaultFees,
      subscription.businessId,
      'pix',
    );
    let txid: string;
    // The amount the cycle's cobr asks is the payment's: a change set meanwhile (refused from the send day on, see
    // updateSubscription) does not make them differ.
    const amountCentavos = cycleAmountOf(subscription);
    try {
      if (!feeRule) throw new CommandError('NO_FEE_RULE', 'Sem regra de tarifa para pix.');
      // Marked before the ask: from here on its cobr may be at the PSP, whatever becomes of the answer.
      if (!(await markCycleOpening(deps.dataSource.manager, subscription.id, cycle, amountCentavos)))
        return opened;
      ({ txid } = await askCycleOpen(deps, subscription, cycle, amountCentavos));
      // Sandbox: the payer's bank is to fail this cycle's debit (simulate fail_next_cycle, kept until a cycle opens).
      if (subscription.failNextCycle)
        await deps.rails.recurrences.simulate(subscription.id, 'fail_next_cycle', `cycle-fail:${paymentId}`);
    } catch (error) {
      deps.logger.warn(
        { subscription_id: subscription.id, cycle, err: error },
        'cycle not opened; tried again after a back-off',
      );
      await backOffCycleOpen(deps.dataSource.manager, subscription.id, cycle);
      return opened;
    }
    const made = await deps.uow.run({}, (tx) =>
      recordOpenedCycle(tx, subscriptionId, cycle, { txid, amountCentavos, feeRule: feeRule! }),
    );
    if (!made) return opened;
    opened += 1;
  }
}

/** Asks the PIX adapter to open cycle `cycle` (its message id the cycle's own: asked again, the same cobr answers). */
function askCycleOpen(
  deps: DueCyclesDeps,
  subscription: SubscriptionEntity,
  cycle: number,
  amountCentavos: number,
): Promise<{ txid: string }> {
  return deps.rails.recurrences.openCycle({
    subscription_id: subscription.id,
    payment_id: cyclePaymentId(subscription.id, cycle),
    cycle,
    amount_centavos: amountCentavos,
    due_date: cycleDueDate(subscription.startDate, subscription.interval, cycle),
    description: subscription.description,
  });
}

/**
 * Records cycle `cycle`, which the adapter opened as `txid`, under the subscription's row lock: its payment (once: the
 * pair is unique, so nothing when another pass recorded it), its ask no longer pending, and the subscription waiting
 * for the next cycle if it still waited for this one (true). A subscription that ended meanwhile (the merchant's
 * cancel, the payer's, the PSP's end) still gets the payment, since the cobr is at the PSP and whatever the PSP does
 * with it (a debit, its end) must land on a payment; it ends as that end's own cycles did: cancelled when not yet due
 * (the adapter removes its cobr), else left to its outcome at the PSP.
 */
async function recordOpenedCycle(
  tx: Transaction,
  subscriptionId: string,
  cycle: number,
  opened: { txid: string; amountCentavos: number; feeRule: FeeTerms },
): Promise<boolean> {
  const locked = await lockSubscription(tx.manager, subscriptionId);
  if (!locked) return false;
  const payment = await insertCyclePayment(tx, locked, cycle, {
    externalId: opened.txid,
    instructions: null,
    feeRule: opened.feeRule,
    amountCentavos: opened.amountCentavos,
  });
  await endCycleOpening(tx.manager, subscriptionId, cycle);
  if (locked.status === 'active' && locked.nextCycle === cycle) {
    await moveToNextCycle(tx.manager, locked, cycle);
    return true;
  }
  if (payment && !isRunning(locked.status))
    await cancelCyclesNotYetDue(tx, locked, todayOf(locked, wallToday()));
  return false;
}

/**
 * A cycle asked of the adapter and never recorded, that no pass will open any more (the subscription ended, or moved
 * past it): the adapter is asked again, under the same message id, and answers the cobr it opened, recorded then as
 * above; or refuses, having opened none (the recurrence ended), and the ask is forgotten. Anything else (no answer, a
 * broker down, the PSP down) is tried again on a later pass. Answers `opened` when the cycle was recorded and the
 * subscription moved past it, `settled` when recorded otherwise or forgotten, `postponed` when left for a later pass.
 */
export async function settleCycleOpening(
  deps: DueCyclesDeps,
  subscriptionId: string,
): Promise<'opened' | 'settled' | 'postponed'> {
  const { manager } = deps.dataSource;
  const subscription = await findSubscription(manager, subscriptionId);
  const opening = await findCycleOpening(manager, subscriptionId);
  if (!subscription || !opening) return 'settled';
  const { cycle, amountCentavos } = opening;
  const feeRule = await businessFeeRule(manager, deps.defaultFees, subscription.businessId, 'pix');
  let txid: string;
  try {
    if (!feeRule) throw new Error('no fee rule for pix');
    ({ txid } = await askCycleOpen(deps, subscription, cycle, amountCentavos));
  } catch (error) {
    if (error instanceof CommandError && ADAPTER_OPENED_NONE.has(error.code)) {
      deps.logger.info(
        { subscription_id: subscriptionId, cycle, code: error.code },
        'a cycle asked and never recorded was not opened by the adapter: nothing to record',
      );
      await endCycleOpening(manager, subscriptionId, cycle);
      return 'settled';
    }
    deps.logger.warn(
      { subscription_id: subscriptionId, cycle, err: error },
      'a cycle asked and never recorded is not settled yet; tried again later',
    );
    await postponeCycleOpening(manager, subscriptionId, cycle);
    return 'postponed';
  }
  const movedOn = await deps.uow.run({}, (tx) =>
    recordOpenedCycle(tx, subscriptionId, cycle, { txid, amountCentavos, feeRule }),
  );
  return movedOn ? 'opened' : 'settled';
}

/**
 * The adapter's refusals of a cycle that say it opened none, and will not: the PSP refused the `cobr` (a date or an
 * amount, INVALID_FIELDS), the recurrence is not approved (INVALID_STATUS), unknown, or the account's PSP has no Pix
 * Automático. Anything else (SERVICE_UNAVAILABLE: no answer, the broker or the PSP down; INTERNAL_ERROR) says nothing of
 * what the PSP holds, so the ask stays pending.
 */
const ADAPTER_OPENED_NONE = new Set([
  'INVALID_FIELDS',
  'INVALID_STATUS',
  'NOT_FOUND',
  'AUTOMATIC_PIX_NOT_SUPPORTED',
]);

/** The subscription waits for the cycle after `cycle` now, its open's back-off (and a fail_next_cycle) cleared. */
async function moveToNextCycle(
  manager: Transaction['manager'],
  locked: SubscriptionEntity,
  cycle: number,
): Promise<void> {
  const next = cycleAfter(locked, cycle);
  locked.nextCycle = next?.cycle ?? null;
  locked.nextDueDate = next?.dueDate ?? null;
  // The amount set for this cycle was its own: the next one asks its minimum unless set again.
  locked.nextCycleAmountCentavos = null;
  locked.failNextCycle = false;
  locked.cycleOpenFailures = 0;
  locked.cycleOpenRetryAt = null;
  await saveSubscription(manager, locked);
}

/**
 * Cycle `cycle` can no longer be sent (its window closed: the scheduler could not open it in time, or the payer
 * authorized too late for it): its payment is recorded as never sent, `failed` with `CYCLE_NOT_SENT`
 * (`payment.created` then `payment.failed`, as any cycle the merchant follows), with no `cobr` at the adapter, and the
 * subscription waits for the next cycle. False when the subscription moved on meanwhile (another pass did it).
 */
async function recordCycleNotSent(
  deps: DueCyclesDeps,
  subscriptionId: string,
  cycle: number,
): Promise<boolean> {
  return deps.uow.run({}, async (tx) => {
    const locked = await lockSubscription(tx.manager, subscriptionId);
    if (!locked || locked.status !== 'active' || locked.nextCycle !== cycle) return false;
    // Asked of the adapter meanwhile (another pass, on a day it could still be sent): that ask is settled first.
    if ((await findCycleOpening(tx.manager, subscriptionId))?.cycle === cycle) return false;
    const payment = await insertCyclePayment(tx, locked, cycle, {
      externalId: null,
      instructions: null,
      // Nothing is charged, so no fee.
      feeRule: { percentBps: 0, fixedCentavos: 0 },
    });
    if (payment)
      await transitionPayment(tx, payment.id, {
        status: 'failed',
        failureCode: 'CYCLE_NOT_SENT',
        failureReason: 'O ciclo não foi enviado ao PSP até 2 dias antes do vencimento e não será cobrado.',
      });
    deps.logger.warn({ subscription_id: subscriptionId, cycle }, 'cycle past its sending window: not sent');
    await moveToNextCycle(tx.manager, locked, cycle);
    return true;
  });
}

/** Past its `end_date` with no cycle left: `expired`, with `subscription.expired`, under its row lock. */
async function expire(deps: DueCyclesDeps, subscriptionId: string): Promise<void> {
  await deps.uow.run({}, async (tx) => {
    const subscription = await lockSubscription(tx.manager, subscriptionId);
    if (!subscription || subscription.status !== 'active' || subscription.nextCycle !== null) return;
    subscription.status = 'expired';
    subscription.endedAt = new Date();
    await saveSubscription(tx.manager, subscription);
    await emitSubscriptionEvent(tx, 'expired', subscription);
  });
}

/**
 * A journey-3 subscription whose QR code expired unpaid (and so unauthorized): `expired`, with `subscription.expired`,
 * and its first payment cancelled with it (the adapter removes its `cob`), under its row lock; nothing when it moved
 * meanwhile (authorized, or ended by the PSP's event). Without this it would wait, pending, until its `start_date`.
 */
export async function expireLapsedAuthorization(deps: DueCyclesDeps, subscriptionId: string): Promise<void> {
  await deps.uow.run({}, async (tx) => {
    const subscription = await lockSubscription(tx.manager, subscriptionId);
    if (!subscription || subscription.status !== 'pending_authorization') return;
    const expiresAt = subscription.authorization?.expires_at;
    if (!expiresAt || new Date(expiresAt).getTime() >= Date.now()) return;
    subscription.status = 'expired';
    subscription.endedAt = new Date();
    subscription.nextCycle = null;
    subscription.nextDueDate = null;
    await saveSubscription(tx.manager, subscription);
    await emitSubscriptionEvent(tx, 'expired', subscription);
    await cancelCyclesNotYetDue(tx, subscription, todayOf(subscription, wallToday()));
  });
}
