import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/** The outbox and inbox tables, created in the schema of whichever service includes this migration. */
export class OutboxInbox1732300000000 implements MigrationInterface {
  name = 'OutboxInbox1732300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE TABLE ${s}.outbox (
        seq bigserial PRIMARY KEY,
        message_id text NOT NULL UNIQUE,
        name text NOT NULL,
        envelope jsonb NOT NULL,
        headers jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        published_at timestamptz
      )`);
    await queryRunner.query(
      `CREATE INDEX outbox_unpublished ON ${s}.outbox (seq) WHERE published_at IS NULL`,
    );
    await queryRunner.query(`
      CREATE TABLE ${s}.inbox (
        consumer text NOT NULL,
        message_id text NOT NULL,
        result jsonb,
        processed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (consumer, message_id)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP TABLE ${s}.inbox`);
    await queryRunner.query(`DROP TABLE ${s}.outbox`);
  }
}
