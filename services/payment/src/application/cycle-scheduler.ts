import { PeriodicWorker } from '@gateway/messaging';
import {
  subscriptionsWithClockToMove,
  subscriptionsWithCycleOpeningLeft,
  subscriptionsWithLapsedAuthorization,
  subscriptionsWithWorkDue,
} from '../persistence';
import { moveSubscriptionClock } from './advance-subscription-clock';
import {
  expireLapsedAuthorization,
  openDueCycles,
  settleCycleOpening,
  type DueCyclesDeps,
} from './shared/due-cycles';

const BATCH = 50;
/** A pass stops after this many full batches (the next pass goes on), so it never runs unbounded. */
const MAX_BATCHES_PER_PASS = 20;

/**
 * Opens every active subscription's cycles as their send days come (7 days before each due date, inside BCB's window
 * of 10 to 2), expires those past their `end_date` and journey 3's whose QR code expired unauthorized: on São Paulo's
 * day by the wall clock in production (found by PostgreSQL's reckoning, so an idle pass formats no date), on each
 * subscription's own clock in the sandbox (moved by `subscription.advance.v1`, which runs the same step; a move whose
 * runner stopped is taken over here), and records the cycles the adapter opened for subscriptions that ended (or moved
 * on) before their payment was recorded (`settleCycleOpening`). Safe on any number of replicas at once: each cycle is
 * opened once (see `openDueCycles`).
 */
export class CycleScheduler extends PeriodicWorker {
  /**
   * @param settleOpeningAfterMs how long after its ask a cycle left unrecorded is settled with the adapter: past any
   * answer still on its way (a few times the rail call's timeout).
   */
  constructor(
    private readonly deps: DueCyclesDeps,
    intervalMs: number,
    private readonly settleOpeningAfterMs: number,
  ) {
    super({ name: 'cycle-scheduler', intervalMs, logger: deps.logger });
  }

  /** One pass over what is due now (tests call it to prove a cycle is opened once). */
  async pass(): Promise<boolean> {
    // Sandbox clock moves asked for that no runner holds (the replica that started one stopped): taken over.
    for (const subscriptionId of await subscriptionsWithClockToMove(this.deps.dataSource.manager, BATCH))
      await moveSubscriptionClock(this.deps, subscriptionId);
    // Cycles asked of the adapter and never recorded, of subscriptions that ended or moved on meanwhile: the cobr the
    // PSP may hold gets its payment.
    for (const subscriptionId of await subscriptionsWithCycleOpeningLeft(
      this.deps.dataSource.manager,
      this.settleOpeningAfterMs,
      BATCH,
    ))
      await settleCycleOpening(this.deps, subscriptionId);
    // Journey 3's QR codes that expired unpaid: those subscriptions expire (not left pending until their start date).
    for (const subscriptionId of await subscriptionsWithLapsedAuthorization(
      this.deps.dataSource.manager,
      BATCH,
    ))
      await expireLapsedAuthorization(this.deps, subscriptionId);
    // Batch after batch until one is not full: each subscription taken either moves past its cycle (opened, or not
    // sent) or backs off its failed open (left out of the next batches), so a batch of refusals never hides the rest.
    // A batch of only subscriptions seen already (nothing moved: another replica holds them) ends the pass.
    const seen = new Set<string>();
    for (let batches = 0; batches < MAX_BATCHES_PER_PASS; batches += 1) {
      const due = await subscriptionsWithWorkDue(this.deps.dataSource.manager, BATCH);
      const fresh = due.filter((subscriptionId) => !seen.has(subscriptionId));
      if (fresh.length === 0) return false;
      for (const subscriptionId of fresh) {
        seen.add(subscriptionId);
        await openDueCycles(this.deps, subscriptionId);
      }
      if (due.length < BATCH) return false;
    }
    return true;
  }
}
