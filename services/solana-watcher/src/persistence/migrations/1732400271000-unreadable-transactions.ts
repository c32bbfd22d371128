import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * Transactions the watcher could not read are kept until it can: never skipped, read again at their next attempt,
 * and counted while unread (the index serves both).
 */
export class UnreadableTransactions1732400271000 implements MigrationInterface {
  name = 'UnreadableTransactions1732400271000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE TABLE ${s}.unreadable_transactions (
        signature text PRIMARY KEY,
        address text NOT NULL,
        block_time timestamptz,
        error text NOT NULL,
        named_references text[] NOT NULL,
        attempts integer NOT NULL DEFAULT 1 CHECK (attempts >= 1),
        first_seen_at timestamptz NOT NULL DEFAULT now(),
        next_attempt_at timestamptz NOT NULL,
        read_at timestamptz
      )`);
    await queryRunner.query(
      `CREATE INDEX unreadable_transactions_due ON ${s}.unreadable_transactions (next_attempt_at)
         WHERE read_at IS NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE ${schemaOf(queryRunner)}.unreadable_transactions`);
  }
}
