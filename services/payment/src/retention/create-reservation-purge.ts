import type { DataSource } from 'typeorm';
import { PeriodicTask } from '@gateway/messaging';
import { counter, type Logger } from '@gateway/observability';
import { purgeCreateReservations } from '../persistence/create-reservations';

const reservationsPurged = counter(
  'payment_create_reservations_purged_total',
  'Create reservations deleted after their retention window',
);

export interface CreateReservationPurgeOptions {
  /** Longer than the gateway's idempotency window, so a retried create always finds its reservation. */
  retentionHours: number;
  intervalMs?: number;
  batchSize?: number;
  logger: Logger;
}

/**
 * Periodically deletes the create commands' payment id reservations once their window is over, in small batches so
 * no pass holds many locks; processed inbox rows are purged by the outbox relay after a longer window.
 */
export class CreateReservationPurge {
  private readonly task: PeriodicTask;
  private readonly batchSize: number;

  constructor(
    private readonly dataSource: DataSource,
    private readonly options: CreateReservationPurgeOptions,
  ) {
    this.batchSize = options.batchSize ?? 1000;
    this.task = new PeriodicTask(async () => (await this.purgeOnce()) >= this.batchSize, {
      name: 'create-reservation-purge',
      intervalMs: options.intervalMs ?? 3_600_000,
      logger: options.logger,
    });
  }

  start(): void {
    this.task.start();
  }

  stop(): Promise<void> {
    return this.task.stop();
  }

  /** One batch; returns how many reservations it deleted. */
  async purgeOnce(): Promise<number> {
    const deleted = await purgeCreateReservations(
      this.dataSource.manager,
      this.options.retentionHours,
      this.batchSize,
    );
    if (deleted > 0) {
      reservationsPurged.inc(deleted);
      this.options.logger.info({ deleted }, 'create reservations purged');
    }
    return deleted;
  }
}
