import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * Money kept for a payment (received_funds) goes back to the payer at most once: by the refund that carries it (an
 * overpayment's excess rides with the refund that completes the payment's refunds) or by hand, never both. The
 * database keeps it whatever code path writes:
 * - `received_funds.returned_by` is null (held), `manual`, or the id of a refund of the same payment that names this
 *   record in `refunds.returned_funds_id`; it is set once, and cleared only when that refund failed (the money did
 *   not go back). `returned_at` dates a return that happened: at once by hand, when the refund succeeded otherwise.
 * - a refund may carry only its own payment's `excess`, still held when the refund is opened, and at most one refund
 *   not failed carries a given record. What a record is (payment, kind, rail, reference, amounts) never changes, and
 *   no record is deleted, except an `unreadable` one (amount unknown), which its transaction, once read, replaces.
 */
export class FundsReturnedOnce1732400273000 implements MigrationInterface {
  name = 'FundsReturnedOnce1732400273000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      ALTER TABLE ${s}.received_funds
        ADD COLUMN returned_by text,
        ADD COLUMN returned_at timestamptz,
        ADD CONSTRAINT received_funds_returned_by_known CHECK (
          returned_by IS NULL OR returned_by = 'manual' OR returned_by LIKE 'ref\\_%'),
        ADD CONSTRAINT received_funds_returned_dated CHECK (
          (returned_by IS NULL AND returned_at IS NULL)
          OR (returned_by = 'manual' AND returned_at IS NOT NULL)
          OR returned_by LIKE 'ref\\_%')`);
    await queryRunner.query(`
      ALTER TABLE ${s}.refunds
        ADD COLUMN returned_funds_id text REFERENCES ${s}.received_funds (funds_id)`);
    await queryRunner.query(`
      CREATE UNIQUE INDEX refunds_return_funds_once ON ${s}.refunds (returned_funds_id)
        WHERE returned_funds_id IS NOT NULL AND status <> 'failed'`);

    // A refund names at its creation the excess it carries: its payment's, and still held.
    await queryRunner.query(`
      CREATE FUNCTION ${s}.refuse_refund_of_unheld_funds() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NOT EXISTS (
             SELECT 1 FROM ${s}.received_funds f
              WHERE f.funds_id = NEW.returned_funds_id AND f.payment_id = NEW.payment_id
                AND f.kind = 'excess' AND f.returned_by IS NULL) THEN
          RAISE EXCEPTION 'refunds: a refund carries only its payment''s excess still held, not %', NEW.returned_funds_id
            USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
        END IF;
        RETURN NEW;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER refunds_carry_held_funds BEFORE INSERT ON ${s}.refunds
      FOR EACH ROW WHEN (NEW.returned_funds_id IS NOT NULL) EXECUTE FUNCTION ${s}.refuse_refund_of_unheld_funds()`);
    // Like what it returns and of which payment, the funds a refund carries are fixed at its creation.
    await queryRunner.query(`
      CREATE FUNCTION ${s}.refuse_refund_funds_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'refunds: the funds a refund carries cannot change'
          USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER refunds_funds_fixed BEFORE UPDATE ON ${s}.refunds
      FOR EACH ROW WHEN (NEW.returned_funds_id IS DISTINCT FROM OLD.returned_funds_id)
      EXECUTE FUNCTION ${s}.refuse_refund_funds_change()`);

    await queryRunner.query(`
      CREATE FUNCTION ${s}.refuse_second_return_of_funds() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        refund_status text;
      BEGIN
        IF TG_OP = 'INSERT' THEN
          IF NEW.returned_by IS NOT NULL THEN
            RAISE EXCEPTION 'received_funds: funds are recorded held'
              USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
          END IF;
          RETURN NEW;
        END IF;
        -- An unreadable record (a transaction not read yet, amount unknown) becomes, once read, what the money
        -- turned out to be: its kind and amount are then set, once; it was never returned (nothing was known).
        IF OLD.kind = 'unreadable' AND OLD.returned_by IS NULL AND NEW.returned_by IS NULL
           AND NEW.kind <> 'unreadable'
           AND (NEW.id, NEW.funds_id, NEW.payment_id, NEW.rail, NEW.rail_reference, NEW.recorded_at)
               IS NOT DISTINCT FROM (OLD.id, OLD.funds_id, OLD.payment_id, OLD.rail, OLD.rail_reference,
                                     OLD.recorded_at) THEN
          RETURN NEW;
        END IF;
        IF (NEW.id, NEW.funds_id, NEW.payment_id, NEW.kind, NEW.rail, NEW.rail_reference, NEW.amount_centavos,
            NEW.amount_base_units, NEW.recorded_at)
           IS DISTINCT FROM (OLD.id, OLD.funds_id, OLD.payment_id, OLD.kind, OLD.rail, OLD.rail_reference,
                             OLD.amount_centavos, OLD.amount_base_units, OLD.recorded_at) THEN
          RAISE EXCEPTION 'received_funds: what was received cannot change'
            USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
        END IF;
        IF (NEW.returned_by, NEW.returned_at) IS NOT DISTINCT FROM (OLD.returned_by, OLD.returned_at) THEN
          RETURN NEW;
        END IF;
        IF OLD.returned_by = 'manual' THEN
          RAISE EXCEPTION 'received_funds: % was returned by hand already', OLD.funds_id
            USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
        END IF;
        IF OLD.returned_by IS NULL THEN
          IF NEW.returned_by = 'manual' THEN
            RETURN NEW;
          END IF;
          SELECT status INTO refund_status FROM ${s}.refunds
           WHERE id = NEW.returned_by AND payment_id = NEW.payment_id AND returned_funds_id = NEW.funds_id;
          IF refund_status IS DISTINCT FROM 'pending' OR NEW.returned_at IS NOT NULL THEN
            RAISE EXCEPTION 'received_funds: % is returned only by a pending refund that carries it', NEW.funds_id
              USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
          END IF;
          RETURN NEW;
        END IF;
        -- Returned by a refund: it succeeds (dated once) or fails (held again); nothing else.
        SELECT status INTO refund_status FROM ${s}.refunds WHERE id = OLD.returned_by;
        IF NEW.returned_by IS NULL AND NEW.returned_at IS NULL AND refund_status = 'failed' THEN
          RETURN NEW;
        END IF;
        IF NEW.returned_by = OLD.returned_by AND OLD.returned_at IS NULL AND NEW.returned_at IS NOT NULL
           AND refund_status = 'succeeded' THEN
          RETURN NEW;
        END IF;
        RAISE EXCEPTION 'received_funds: % is returned by refund % (%), not again', OLD.funds_id, OLD.returned_by,
          refund_status
          USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER received_funds_returned_once BEFORE INSERT OR UPDATE ON ${s}.received_funds
      FOR EACH ROW EXECUTE FUNCTION ${s}.refuse_second_return_of_funds()`);
    await queryRunner.query(`
      CREATE FUNCTION ${s}.refuse_received_funds_delete() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        -- The one record that goes: an unreadable one whose transaction, once read, paid the payment (the money is
        -- then the payment itself). It held no amount and was never returned.
        IF OLD.kind = 'unreadable' AND OLD.returned_by IS NULL THEN
          RETURN OLD;
        END IF;
        RAISE EXCEPTION 'received_funds: money received is never forgotten'
          USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER received_funds_kept BEFORE DELETE ON ${s}.received_funds
      FOR EACH ROW EXECUTE FUNCTION ${s}.refuse_received_funds_delete()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP TRIGGER received_funds_kept ON ${s}.received_funds`);
    await queryRunner.query(`DROP FUNCTION ${s}.refuse_received_funds_delete()`);
    await queryRunner.query(`DROP TRIGGER received_funds_returned_once ON ${s}.received_funds`);
    await queryRunner.query(`DROP FUNCTION ${s}.refuse_second_return_of_funds()`);
    await queryRunner.query(`DROP TRIGGER refunds_carry_held_funds ON ${s}.refunds`);
    await queryRunner.query(`DROP FUNCTION ${s}.refuse_refund_of_unheld_funds()`);
    await queryRunner.query(`DROP TRIGGER refunds_funds_fixed ON ${s}.refunds`);
    await queryRunner.query(`DROP FUNCTION ${s}.refuse_refund_funds_change()`);
    await queryRunner.query(`DROP INDEX ${s}.refunds_return_funds_once`);
    await queryRunner.query(`ALTER TABLE ${s}.refunds DROP COLUMN returned_funds_id`);
    await queryRunner.query(`
      ALTER TABLE ${s}.received_funds
        DROP CONSTRAINT received_funds_returned_dated,
        DROP CONSTRAINT received_funds_returned_by_known,
        DROP COLUMN returned_at,
        DROP COLUMN returned_by`);
  }
}
