import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * Money in suspense and disputes (docs/money-model.md#suspense, #disputes), each kept with the journals that moved it.
 *
 * `suspense_funds`: one row per sum of money that belongs to no payment yet (its `money_key`, the same for every
 * received-funds record of it), with the value booked in (`amount_centavos`, null when its BRL value is not known: then
 * nothing was booked) and where it is held. It leaves suspense once: `held` becomes `returned` or `assigned`, with the
 * journal that moved it, and never changes again.
 *
 * `disputes`: one row per dispute, with the amount its opening blocked and the journal that did; it closes once,
 * `open` becoming `won` or `lost` with its closing journal, and never changes again.
 */
export class SuspenseAndDisputes1764400400000 implements MigrationInterface {
  name = 'SuspenseAndDisputes1764400400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE TABLE ${s}.suspense_funds (
        money_key text PRIMARY KEY,
        funds_id text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('late', 'excess', 'partial', 'unmatched')),
        rail text NOT NULL CHECK (rail IN ('pix', 'crypto')),
        payment_id text NOT NULL,
        business_id text,
        holding_account text NOT NULL CHECK (holding_account = 'cash_psp' OR holding_account LIKE 'tokens:%'),
        amount_centavos bigint CHECK (amount_centavos > 0),
        amount_base_units text,
        received_journal_id bigint REFERENCES ${s}.journals (id),
        received_at timestamptz NOT NULL,
        status text NOT NULL DEFAULT 'held' CHECK (status IN ('held', 'returned', 'assigned')),
        closed_journal_id bigint REFERENCES ${s}.journals (id),
        closed_business_id text,
        closed_at timestamptz,
        CONSTRAINT suspense_funds_booked_with_value CHECK ((amount_centavos IS NULL) = (received_journal_id IS NULL)),
        CONSTRAINT suspense_funds_closed_dated CHECK ((status = 'held') = (closed_at IS NULL)),
        CONSTRAINT suspense_funds_closed_by_journal CHECK (
          status = 'held' OR amount_centavos IS NULL OR closed_journal_id IS NOT NULL),
        CONSTRAINT suspense_funds_assigned_to_business CHECK (
          status <> 'assigned' OR (closed_business_id IS NOT NULL AND closed_journal_id IS NOT NULL))
      )`);
    await queryRunner.query(
      `CREATE INDEX suspense_funds_held ON ${s}.suspense_funds (received_at) WHERE status = 'held'`,
    );

    await queryRunner.query(`
      CREATE TABLE ${s}.disputes (
        dispute_id text PRIMARY KEY,
        payment_id text NOT NULL,
        business_id text NOT NULL,
        amount_centavos bigint NOT NULL CHECK (amount_centavos > 0),
        status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'won', 'lost')),
        opened_journal_id bigint NOT NULL REFERENCES ${s}.journals (id),
        opened_at timestamptz NOT NULL,
        closed_journal_id bigint REFERENCES ${s}.journals (id),
        closed_at timestamptz,
        CONSTRAINT disputes_closed_by_journal CHECK (
          (status = 'open') = (closed_journal_id IS NULL) AND (status = 'open') = (closed_at IS NULL))
      )`);

    // Out of suspense once, closed once: only the one step from `held` / `open`, and what came in never changes.
    await queryRunner.query(`
      CREATE FUNCTION ${s}.refuse_suspense_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' THEN
          RAISE EXCEPTION 'ledger %: rows are never deleted', TG_TABLE_NAME
            USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        IF TG_TABLE_NAME = 'suspense_funds' THEN
          -- Money whose value was not known is valued once, by the first record of it that knows it.
          IF OLD.status = 'held' AND NEW.status = 'held' AND OLD.amount_centavos IS NULL
             AND (NEW.money_key, NEW.funds_id, NEW.kind, NEW.rail, NEW.payment_id, NEW.received_at)
                 IS NOT DISTINCT FROM (OLD.money_key, OLD.funds_id, OLD.kind, OLD.rail, OLD.payment_id, OLD.received_at)
          THEN
            RETURN NEW;
          END IF;
          IF OLD.status <> 'held' OR NEW.status = 'held'
             OR (NEW.money_key, NEW.funds_id, NEW.kind, NEW.rail, NEW.payment_id, NEW.business_id,
                 NEW.holding_account, NEW.amount_centavos, NEW.amount_base_units, NEW.received_journal_id,
                 NEW.received_at)
                IS DISTINCT FROM (OLD.money_key, OLD.funds_id, OLD.kind, OLD.rail, OLD.payment_id, OLD.business_id,
                 OLD.holding_account, OLD.amount_centavos, OLD.amount_base_units, OLD.received_journal_id,
                 OLD.received_at) THEN
            RAISE EXCEPTION 'ledger suspense_funds: % leaves suspense once (%), nothing else changes',
              OLD.money_key, OLD.status USING ERRCODE = 'integrity_constraint_violation';
          END IF;
          RETURN NEW;
        END IF;
        IF OLD.status <> 'open' OR NEW.status = 'open'
           OR (NEW.dispute_id, NEW.payment_id, NEW.business_id, NEW.amount_centavos, NEW.opened_journal_id,
               NEW.opened_at)
              IS DISTINCT FROM (OLD.dispute_id, OLD.payment_id, OLD.business_id, OLD.amount_centavos,
               OLD.opened_journal_id, OLD.opened_at) THEN
          RAISE EXCEPTION 'ledger disputes: % closes once (%), nothing else changes', OLD.dispute_id, OLD.status
            USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN NEW;
      END $$`);
    for (const table of ['suspense_funds', 'disputes'])
      await queryRunner.query(`
        CREATE TRIGGER ${table}_closed_once BEFORE UPDATE OR DELETE ON ${s}.${table}
        FOR EACH ROW EXECUTE FUNCTION ${s}.refuse_suspense_change()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP TABLE ${s}.disputes`);
    await queryRunner.query(`DROP TABLE ${s}.suspense_funds`);
    await queryRunner.query(`DROP FUNCTION ${s}.refuse_suspense_change()`);
  }
}
