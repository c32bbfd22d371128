import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * A balance transaction is dated when it is posted (docs/adr/0026-balance-transactions-dated-when-posted.md), so a
 * month's statement, once the month has ended, never changes.
 *
 * - `created_at` is set by the database as the row is written (`clock_timestamp()`, to the millisecond the API
 *   shows), whatever the writer gave; the time of the event that caused it is kept beside it (`occurred_at`). Rows
 *   written before keep their date: it was their event's time, and a statement already downloaded must not change.
 * - Every writer takes a shared advisory lock (until its transaction ends) before the row is dated; closing the
 *   statements through an instant takes it exclusively, so it waits for every posting in flight, and a posting dated
 *   before that instant is committed once the closing is. `statement_closings` remembers the instants closed, so each
 *   month's end is closed once, by the first read of a statement that needs it.
 */
export class BalanceTransactionsDatedWhenPosted1764401300000 implements MigrationInterface {
  name = 'BalanceTransactionsDatedWhenPosted1764401300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`ALTER TABLE ${s}.balance_transactions ADD COLUMN occurred_at timestamptz`);
    await queryRunner.query(`UPDATE ${s}.balance_transactions SET occurred_at = created_at`);
    await queryRunner.query(`ALTER TABLE ${s}.balance_transactions ALTER COLUMN occurred_at SET NOT NULL`);

    await queryRunner.query(`
      CREATE FUNCTION ${s}.date_balance_transaction() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_advisory_xact_lock_shared(hashtext('ledger:balance-transaction-dating'));
        NEW.created_at := date_trunc('milliseconds', clock_timestamp());
        RETURN NEW;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER balance_transactions_dated_when_posted BEFORE INSERT ON ${s}.balance_transactions
      FOR EACH ROW EXECUTE FUNCTION ${s}.date_balance_transaction()`);

    await queryRunner.query(`CREATE TABLE ${s}.statement_closings (closed_through timestamptz PRIMARY KEY)`);
    // Whether every balance transaction dated before the instant is committed: false while the instant is still to
    // come; otherwise closes the statements through now unless they were closed through the instant before.
    await queryRunner.query(`
      CREATE FUNCTION ${s}.close_statements_through(instant timestamptz) RETURNS boolean LANGUAGE plpgsql AS $$
      BEGIN
        IF clock_timestamp() < instant THEN
          RETURN false;
        END IF;
        IF EXISTS (SELECT 1 FROM ${s}.statement_closings WHERE closed_through >= instant) THEN
          RETURN true;
        END IF;
        PERFORM pg_advisory_xact_lock(hashtext('ledger:balance-transaction-dating'));
        INSERT INTO ${s}.statement_closings (closed_through)
        VALUES (date_trunc('milliseconds', clock_timestamp())) ON CONFLICT DO NOTHING;
        RETURN true;
      END $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP FUNCTION ${s}.close_statements_through(timestamptz)`);
    await queryRunner.query(`DROP TABLE ${s}.statement_closings`);
    await queryRunner.query(
      `DROP TRIGGER balance_transactions_dated_when_posted ON ${s}.balance_transactions`,
    );
    await queryRunner.query(`DROP FUNCTION ${s}.date_balance_transaction()`);
    await queryRunner.query(`ALTER TABLE ${s}.balance_transactions DROP COLUMN occurred_at`);
  }
}
