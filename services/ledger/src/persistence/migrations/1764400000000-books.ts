import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * The books (docs/money-model.md): journals keyed by their cause, their immutable entries, each business's four
 * balances, its balance transactions and the settlements due. The database itself refuses what the rules forbid:
 * a journal whose entries do not sum to zero (checked at commit), any change or removal of an entry or a journal,
 * and a `pending`, `reserved` or `blocked` balance below zero.
 */
export class Books1764400000000 implements MigrationInterface {
  name = 'Books1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE TABLE ${s}.journals (
        id bigserial PRIMARY KEY,
        cause_key text NOT NULL,
        kind text NOT NULL,
        business_id text,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT journals_cause_key UNIQUE (cause_key)
      )`);
    await queryRunner.query(`
      CREATE TABLE ${s}.entries (
        id bigserial PRIMARY KEY,
        journal_id bigint NOT NULL REFERENCES ${s}.journals (id),
        account text NOT NULL,
        business_id text,
        amount_centavos bigint NOT NULL CHECK (amount_centavos <> 0),
        CONSTRAINT entries_business_account CHECK (
          (account IN ('pending', 'available', 'reserved', 'blocked')) = (business_id IS NOT NULL)
        )
      )`);
    await queryRunner.query(`CREATE INDEX entries_journal ON ${s}.entries (journal_id)`);
    await queryRunner.query(`CREATE INDEX entries_account ON ${s}.entries (account, business_id)`);

    // Entries and journals are written once: a correction is a new journal.
    await queryRunner.query(`
      CREATE FUNCTION ${s}.refuse_book_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'ledger % are immutable: % refused (post a correcting journal instead)', TG_TABLE_NAME, TG_OP
          USING ERRCODE = 'integrity_constraint_violation';
      END $$`);
    for (const table of ['journals', 'entries']) {
      await queryRunner.query(`
        CREATE TRIGGER ${table}_immutable BEFORE UPDATE OR DELETE ON ${s}.${table}
        FOR EACH ROW EXECUTE FUNCTION ${s}.refuse_book_change()`);
      await queryRunner.query(`
        CREATE TRIGGER ${table}_not_truncated BEFORE TRUNCATE ON ${s}.${table}
        FOR EACH STATEMENT EXECUTE FUNCTION ${s}.refuse_book_change()`);
    }

    // Every journal sums to zero, checked at commit, once all of its entries are in.
    await queryRunner.query(`
      CREATE FUNCTION ${s}.check_journal_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE total numeric;
      BEGIN
        SELECT COALESCE(SUM(amount_centavos), 0) INTO total FROM ${s}.entries WHERE journal_id = NEW.journal_id;
        IF total <> 0 THEN
          RAISE EXCEPTION 'journal % does not sum to zero (%)', NEW.journal_id, total
            USING ERRCODE = 'check_violation';
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE CONSTRAINT TRIGGER entries_journal_balanced AFTER INSERT ON ${s}.entries
      DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW EXECUTE FUNCTION ${s}.check_journal_balanced()`);

    // What the platform owes each business, kept with every journal in its own transaction. `available` may go below
    // zero (a refund that succeeded with less than it available and pending: docs/money-model.md#refunds).
    await queryRunner.query(`
      CREATE TABLE ${s}.balances (
        business_id text PRIMARY KEY,
        available_centavos bigint NOT NULL DEFAULT 0,
        pending_centavos bigint NOT NULL DEFAULT 0 CHECK (pending_centavos >= 0),
        reserved_centavos bigint NOT NULL DEFAULT 0 CHECK (reserved_centavos >= 0),
        blocked_centavos bigint NOT NULL DEFAULT 0 CHECK (blocked_centavos >= 0),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);

    await queryRunner.query(`
      CREATE TABLE ${s}.balance_transactions (
        id text PRIMARY KEY,
        business_id text NOT NULL,
        journal_id bigint NOT NULL REFERENCES ${s}.journals (id),
        type text NOT NULL,
        source_id text NOT NULL,
        amount_centavos bigint NOT NULL,
        fee_centavos bigint NOT NULL CHECK (fee_centavos >= 0),
        net_centavos bigint NOT NULL CHECK (net_centavos = amount_centavos - fee_centavos),
        status text NOT NULL CHECK (status IN ('pending', 'available')),
        available_on timestamptz NOT NULL,
        created_at timestamptz NOT NULL,
        description text NOT NULL
      )`);
    await queryRunner.query(
      `CREATE INDEX balance_transactions_page ON ${s}.balance_transactions (business_id, created_at DESC, id DESC)`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX balance_transactions_source ON ${s}.balance_transactions (type, source_id)`,
    );

    // A paid payment's net waiting in pending: the sweep finds the due ones by the partial index.
    await queryRunner.query(`
      CREATE TABLE ${s}.settlements (
        payment_id text PRIMARY KEY,
        business_id text NOT NULL,
        balance_transaction_id text NOT NULL REFERENCES ${s}.balance_transactions (id),
        holding_account text NOT NULL,
        net_centavos bigint NOT NULL,
        available_on timestamptz NOT NULL,
        settled_at timestamptz
      )`);
    await queryRunner.query(
      `CREATE INDEX settlements_due ON ${s}.settlements (available_on) WHERE settled_at IS NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP TABLE ${s}.settlements`);
    await queryRunner.query(`DROP TABLE ${s}.balance_transactions`);
    await queryRunner.query(`DROP TABLE ${s}.balances`);
    await queryRunner.query(`DROP TABLE ${s}.entries`);
    await queryRunner.query(`DROP TABLE ${s}.journals`);
    await queryRunner.query(`DROP FUNCTION ${s}.check_journal_balanced()`);
    await queryRunner.query(`DROP FUNCTION ${s}.refuse_book_change()`);
  }
}
