import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * Where the reconciliation stands in each owner's event log (the payment service's, the ledger's): the last position
 * read, and the lease of the one replica reading it (docs/adr/0040-webhook-event-log-reconciliation.md). An event the
 * broker brings too is recorded once all the same: events are keyed by their id, deliveries are unique per webhook
 * and event (`deliveries_one_per_event`).
 */
export class EventLogCursors1764403100000 implements MigrationInterface {
  name = 'EventLogCursors1764403100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE ${schemaOf(queryRunner)}.event_log_cursors (
        log text PRIMARY KEY,
        position bigint NOT NULL DEFAULT 0 CHECK (position >= 0),
        lease_owner text,
        lease_expires_at timestamptz,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE ${schemaOf(queryRunner)}.event_log_cursors`);
  }
}
