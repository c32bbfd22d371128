import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * A balance transaction is a line of a statement a business may have downloaded: the database keeps it as posted. It
 * is never deleted (nor truncated), and the one change it allows is the one settlement makes: `status` from `pending`
 * to `available`, every other column as it was.
 */
export class BalanceTransactionsKeptAsPosted1764401300100 implements MigrationInterface {
  name = 'BalanceTransactionsKeptAsPosted1764401300100';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    // The row compared whole but for its status, so a column added later is held too.
    await queryRunner.query(`
      CREATE FUNCTION ${s}.keep_balance_transaction() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'UPDATE' AND OLD.status = 'pending' AND NEW.status = 'available'
           AND to_jsonb(NEW) - 'status' = to_jsonb(OLD) - 'status' THEN
          RETURN NEW;
        END IF;
        RAISE EXCEPTION 'ledger balance transactions are kept as posted: % refused (only status pending -> available)',
          TG_OP USING ERRCODE = 'integrity_constraint_violation';
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER balance_transactions_kept BEFORE UPDATE OR DELETE ON ${s}.balance_transactions
      FOR EACH ROW EXECUTE FUNCTION ${s}.keep_balance_transaction()`);
    await queryRunner.query(`
      CREATE TRIGGER balance_transactions_not_truncated BEFORE TRUNCATE ON ${s}.balance_transactions
      FOR EACH STATEMENT EXECUTE FUNCTION ${s}.keep_balance_transaction()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP TRIGGER balance_transactions_not_truncated ON ${s}.balance_transactions`);
    await queryRunner.query(`DROP TRIGGER balance_transactions_kept ON ${s}.balance_transactions`);
    await queryRunner.query(`DROP FUNCTION ${s}.keep_balance_transaction()`);
  }
}
