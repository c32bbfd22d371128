import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * A business's balance row is tied to its entries by the database: at commit, what each of its four balances moved in
 * the transaction must be what the transaction's entries moved that account by (a credit, a negative entry, raises it),
 * whether the code changed the balance, wrote the entries, or both. As a balance started equal to the sum of its
 * entries (the books were built so), it stays so.
 *
 * The check looks only at the transaction's own work, so its cost does not grow with the books: a balance remembers
 * what it was before the transaction first changed it (a trigger), and each entry the transaction it was written in
 * (indexed for the business's entries).
 */
export class BalancesTiedToEntries1764401300200 implements MigrationInterface {
  name = 'BalancesTiedToEntries1764401300200';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      ALTER TABLE ${s}.balances
        ADD COLUMN changed_in_transaction bigint,
        ADD COLUMN available_before_centavos bigint,
        ADD COLUMN pending_before_centavos bigint,
        ADD COLUMN reserved_before_centavos bigint,
        ADD COLUMN blocked_before_centavos bigint`);
    // Entries written before carry no transaction: no transaction running now wrote them.
    await queryRunner.query(`ALTER TABLE ${s}.entries ADD COLUMN created_in_transaction bigint`);
    await queryRunner.query(
      `ALTER TABLE ${s}.entries ALTER COLUMN created_in_transaction SET DEFAULT txid_current()`,
    );
    await queryRunner.query(`
      CREATE INDEX entries_business_transaction ON ${s}.entries (business_id, created_in_transaction)
      WHERE business_id IS NOT NULL`);

    // What the row was before this transaction first changed it (zero for a row it made); never set by a writer.
    await queryRunner.query(`
      CREATE FUNCTION ${s}.remember_balance_before() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          NEW.changed_in_transaction := txid_current();
          NEW.available_before_centavos := 0;
          NEW.pending_before_centavos := 0;
          NEW.reserved_before_centavos := 0;
          NEW.blocked_before_centavos := 0;
        ELSIF OLD.changed_in_transaction IS DISTINCT FROM txid_current() THEN
          NEW.changed_in_transaction := txid_current();
          NEW.available_before_centavos := OLD.available_centavos;
          NEW.pending_before_centavos := OLD.pending_centavos;
          NEW.reserved_before_centavos := OLD.reserved_centavos;
          NEW.blocked_before_centavos := OLD.blocked_centavos;
        ELSE
          NEW.changed_in_transaction := OLD.changed_in_transaction;
          NEW.available_before_centavos := OLD.available_before_centavos;
          NEW.pending_before_centavos := OLD.pending_before_centavos;
          NEW.reserved_before_centavos := OLD.reserved_before_centavos;
          NEW.blocked_before_centavos := OLD.blocked_before_centavos;
        END IF;
        RETURN NEW;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER balances_remember_before BEFORE INSERT OR UPDATE ON ${s}.balances
      FOR EACH ROW EXECUTE FUNCTION ${s}.remember_balance_before()`);

    await queryRunner.query(`
      CREATE FUNCTION ${s}.check_balance_tied_to_entries() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        business text := NEW.business_id;
        balance ${s}.balances%ROWTYPE;
        moved record;
      BEGIN
        SELECT -COALESCE(SUM(amount_centavos) FILTER (WHERE account = 'available'), 0) AS available,
               -COALESCE(SUM(amount_centavos) FILTER (WHERE account = 'pending'), 0) AS pending,
               -COALESCE(SUM(amount_centavos) FILTER (WHERE account = 'reserved'), 0) AS reserved,
               -COALESCE(SUM(amount_centavos) FILTER (WHERE account = 'blocked'), 0) AS blocked
          INTO moved
          FROM ${s}.entries WHERE business_id = business AND created_in_transaction = txid_current();
        SELECT * INTO balance FROM ${s}.balances WHERE business_id = business;
        IF NOT FOUND THEN
          IF moved.available <> 0 OR moved.pending <> 0 OR moved.reserved <> 0 OR moved.blocked <> 0 THEN
            RAISE EXCEPTION 'entries of business % moved its balance, which has no row', business
              USING ERRCODE = 'check_violation';
          END IF;
          RETURN NULL;
        END IF;
        -- A balance this transaction did not change moved by nothing.
        IF balance.changed_in_transaction IS DISTINCT FROM txid_current() THEN
          balance.available_before_centavos := balance.available_centavos;
          balance.pending_before_centavos := balance.pending_centavos;
          balance.reserved_before_centavos := balance.reserved_centavos;
          balance.blocked_before_centavos := balance.blocked_centavos;
        END IF;
        IF balance.available_centavos - balance.available_before_centavos <> moved.available
           OR balance.pending_centavos - balance.pending_before_centavos <> moved.pending
           OR balance.reserved_centavos - balance.reserved_before_centavos <> moved.reserved
           OR balance.blocked_centavos - balance.blocked_before_centavos <> moved.blocked THEN
          RAISE EXCEPTION 'the balance of business % moved otherwise than its entries (available %, pending %, reserved %, blocked % by the entries)',
            business, moved.available, moved.pending, moved.reserved, moved.blocked
            USING ERRCODE = 'check_violation';
        END IF;
        RETURN NULL;
      END $$`);
    // Checked at commit, once the transaction has written all it writes, for every balance it changed and every
    // business its entries name.
    await queryRunner.query(`
      CREATE CONSTRAINT TRIGGER balances_tied_to_entries AFTER INSERT OR UPDATE ON ${s}.balances
      DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW EXECUTE FUNCTION ${s}.check_balance_tied_to_entries()`);
    await queryRunner.query(`
      CREATE CONSTRAINT TRIGGER entries_tied_to_balances AFTER INSERT ON ${s}.entries
      DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW WHEN (NEW.business_id IS NOT NULL) EXECUTE FUNCTION ${s}.check_balance_tied_to_entries()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP TRIGGER entries_tied_to_balances ON ${s}.entries`);
    await queryRunner.query(`DROP TRIGGER balances_tied_to_entries ON ${s}.balances`);
    await queryRunner.query(`DROP FUNCTION ${s}.check_balance_tied_to_entries()`);
    await queryRunner.query(`DROP TRIGGER balances_remember_before ON ${s}.balances`);
    await queryRunner.query(`DROP FUNCTION ${s}.remember_balance_before()`);
    await queryRunner.query(`DROP INDEX ${s}.entries_business_transaction`);
    await queryRunner.query(`ALTER TABLE ${s}.entries DROP COLUMN created_in_transaction`);
    await queryRunner.query(`
      ALTER TABLE ${s}.balances
        DROP COLUMN blocked_before_centavos,
        DROP COLUMN reserved_before_centavos,
        DROP COLUMN pending_before_centavos,
        DROP COLUMN available_before_centavos,
        DROP COLUMN changed_in_transaction`);
  }
}
