import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * Every public event of a business, subscribed to or not, kept for the events API (docs/api.md#events) with the
 * exact body its webhooks receive. The id is the event's own, so an event stored twice (a redelivery, an outbox
 * replay) is one row. `created_at` is when it was stored (the body keeps when it happened): listed the last stored
 * first, optionally by type, so one stored late is never behind a page a client has read; purged by it.
 */
export class Events1732400130000 implements MigrationInterface {
  name = 'Events1732400130000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE TABLE ${s}.events (
        id text PRIMARY KEY,
        business_id text NOT NULL,
        type text NOT NULL,
        created_at timestamptz NOT NULL,
        body text NOT NULL
      )`);
    await queryRunner.query(
      `CREATE INDEX events_page ON ${s}.events (business_id, created_at DESC, id DESC)`,
    );
    await queryRunner.query(
      `CREATE INDEX events_page_by_type ON ${s}.events (business_id, type, created_at DESC, id DESC)`,
    );
    await queryRunner.query(`CREATE INDEX events_by_age ON ${s}.events (created_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE ${schemaOf(queryRunner)}.events`);
  }
}
