import type { DataSource } from 'typeorm';
import { PeriodicWorker } from '@gateway/messaging';
import { gauge, type Logger } from '@gateway/observability';
import { newestComparison } from '../persistence';

const differencesGauge = gauge(
  'ledger_reconciliation_differences',
  'Differences between the books and the rails found by the newest completed reconciliation run, by rail (pix, solana)',
  ['rail'],
);
const lastCompleted = gauge(
  'ledger_reconciliation_last_completed_timestamp_seconds',
  'When the newest reconciliation run that compared the books with the rails finished (Unix seconds)',
);

export interface ReconciliationGaugesOptions {
  /** How often the figures are read again from the database. */
  intervalMs: number;
  logger: Logger;
}

/**
 * The reconciliation's gauges, as every replica reports them: read from the newest completed run stored, whichever
 * replica ran it, at start, on every interval and when this replica has stored a run (`nudge`). So replicas agree
 * within an interval, and a replica never keeps reporting an older run's differences once a newer run found none. A
 * failed run compared nothing: the last comparison's figures stand.
 */
export class ReconciliationGauges extends PeriodicWorker {
  constructor(
    private readonly dataSource: DataSource,
    options: ReconciliationGaugesOptions,
  ) {
    super({ name: 'reconciliation-gauges', intervalMs: options.intervalMs, logger: options.logger });
  }

  protected async pass(): Promise<void> {
    const newest = await newestComparison(this.dataSource.manager);
    if (newest === null) return;
    for (const [rail, count] of Object.entries(newest.differences)) differencesGauge.set({ rail }, count);
    lastCompleted.set(newest.finishedAt.getTime() / 1000);
  }
}
