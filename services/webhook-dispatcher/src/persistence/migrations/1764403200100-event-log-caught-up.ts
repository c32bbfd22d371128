import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * When each event log's position last reached the end of what its owner answered as settled: the reconciliation's
 * lag (`webhook_event_log_lag_seconds`) is the time since, the same on every replica, whichever holds the lease.
 */
export class EventLogCaughtUp1764403200100 implements MigrationInterface {
  name = 'EventLogCaughtUp1764403200100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE ${schemaOf(queryRunner)}.event_log_cursors ADD COLUMN caught_up_at timestamptz NOT NULL DEFAULT now()`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE ${schemaOf(queryRunner)}.event_log_cursors DROP COLUMN caught_up_at`,
    );
  }
}
