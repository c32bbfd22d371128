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

/**
 * Outbox rows are claimed for a short lease (`claimed_until`) instead of being locked while they are published, so
 * no transaction stays open while the broker confirms; a row whose relay died is claimed again once the lease ends.
 */
export class OutboxClaims1732400040000 implements MigrationInterface {
  name = 'OutboxClaims1732400040000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE ${schemaOf(queryRunner)}.outbox ADD COLUMN claimed_until timestamptz`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE ${schemaOf(queryRunner)}.outbox DROP COLUMN claimed_until`);
  }
}

/** The backbone's tables in migration order, put in front of every service's own migrations. */
export const outboxInboxMigrations = [OutboxInbox1732300000000, OutboxClaims1732400040000];
