import type { DataSource } from 'typeorm';
import { PeriodicWorker } from '@gateway/messaging';
import type { Logger } from '@gateway/observability';
import { claimReconciliationSlot } from '../persistence';
import { reconcileBooks, type ReconcileBooksDeps } from './reconcile-books';

export interface ReconciliationScheduleOptions {
  intervalSeconds: number;
  logger: Logger;
  /** How often a replica looks whether the current slot has been run (default: a minute, or the interval if shorter). */
  checkEveryMs?: number;
  /**
   * How long after start a replica waits before it claims a slot (default a minute): the rails' owners starting beside
   * it are up by then, and a process that is restarting in a loop does not run one reconciliation per start.
   */
  startupDelayMs?: number;
  now?: () => Date;
}

/**
 * The scheduled reconciliation: once per interval (daily by default) across every replica. Time is cut into slots of
 * the interval since the epoch; each replica's timer tries to claim the current slot in the database, and only the one
 * whose claim was new runs it (as the settlement sweep's row claims keep two sweeps off the same payment). A replica
 * started mid-slot claims it if nobody has; a run that failed is recorded failed and waits for the next slot (an
 * operator can run one at once: POST /admin/v1/reconciliations).
 */
export class ReconciliationSchedule extends PeriodicWorker {
  private readonly now: () => Date;
  private readonly notBefore: number;

  constructor(
    private readonly dataSource: DataSource,
    private readonly deps: ReconcileBooksDeps,
    private readonly options: ReconciliationScheduleOptions,
  ) {
    super({
      name: 'reconciliation-schedule',
      intervalMs: options.checkEveryMs ?? Math.min(60_000, options.intervalSeconds * 1000),
      logger: options.logger,
    });
    this.now = options.now ?? (() => new Date());
    this.notBefore = this.now().getTime() + (options.startupDelayMs ?? 60_000);
  }

  protected async pass(): Promise<void> {
    if (this.now().getTime() < this.notBefore) return;
    const slot = Math.floor(this.now().getTime() / (this.options.intervalSeconds * 1000));
    if (!(await claimReconciliationSlot(this.dataSource.manager, slot))) return;
    await reconcileBooks(this.deps, { trigger: 'schedule' });
  }
}
