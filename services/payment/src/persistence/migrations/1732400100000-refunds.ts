import type { MigrationInterface, QueryRunner } from 'typeorm';
import { allowChangeOnFinalRows, dropFinalRowGuard, guardFinalRows, schemaOf } from '@gateway/persistence';

/**
 * Refunds, owned here with the payment they return money of. The database keeps the rules no code path may break:
 * a refund moves only from `pending` to `succeeded` or `failed` and is then frozen; a payment's refunds not failed
 * (`refund_reserved_centavos`) never exceed its amount, whatever requests race; what succeeded
 * (`refunded_centavos`) never exceeds what is reserved. `paid_at` dates the PIX refund window.
 */
export class Refunds1732400100000 implements MigrationInterface {
  name = 'Refunds1732400100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      ALTER TABLE ${s}.payments
        ADD COLUMN paid_at timestamptz,
        ADD COLUMN refund_reserved_centavos bigint NOT NULL DEFAULT 0,
        ADD COLUMN refunded_centavos bigint NOT NULL DEFAULT 0,
        ADD CONSTRAINT payments_refunds_within_amount CHECK (
          0 <= refunded_centavos AND refunded_centavos <= refund_reserved_centavos
          AND refund_reserved_centavos <= amount_centavos)`);
    // A payment paid before this column existed was frozen when paid: its updated_at is when.
    await queryRunner.query(`ALTER TABLE ${s}.payments DISABLE TRIGGER payments_final_rows_frozen`);
    await queryRunner.query(`UPDATE ${s}.payments SET paid_at = updated_at WHERE status = 'paid'`);
    await queryRunner.query(`ALTER TABLE ${s}.payments ENABLE TRIGGER payments_final_rows_frozen`);
    await allowChangeOnFinalRows(queryRunner, 'payments', ['refund_reserved_centavos', 'refunded_centavos']);

    await queryRunner.query(`
      CREATE TABLE ${s}.refunds (
        id text PRIMARY KEY,
        payment_id text NOT NULL REFERENCES ${s}.payments (id),
        business_id text NOT NULL,
        method text NOT NULL,
        amount_centavos bigint NOT NULL CHECK (amount_centavos > 0),
        status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
        reason text,
        failure_reason text,
        external_id text,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    await queryRunner.query(
      `CREATE INDEX refunds_page ON ${s}.refunds (payment_id, created_at DESC, id DESC)`,
    );
    // The resend pass reads the pending ones, oldest asked first: few, whatever the table holds.
    await queryRunner.query(
      `CREATE INDEX refunds_pending ON ${s}.refunds (updated_at) WHERE status = 'pending'`,
    );
    await guardFinalRows(queryRunner, {
      table: 'refunds',
      finalStatuses: ['succeeded', 'failed'],
      changeableColumns: [],
    });
    // A pending refund may only settle: back to pending from nowhere else is impossible (final rows are frozen).
    await queryRunner.query(`
      CREATE FUNCTION ${s}.refuse_refund_insert_not_pending() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.status <> 'pending' THEN
          RAISE EXCEPTION 'refunds: a refund starts pending, not %', NEW.status
            USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
        END IF;
        RETURN NEW;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER refunds_start_pending BEFORE INSERT ON ${s}.refunds
      FOR EACH ROW EXECUTE FUNCTION ${s}.refuse_refund_insert_not_pending()`);
    // What a refund returns, and of which payment, is fixed at its creation: the payment's totals count on it.
    await queryRunner.query(`
      CREATE FUNCTION ${s}.refuse_refund_terms_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF (NEW.payment_id, NEW.business_id, NEW.method, NEW.amount_centavos)
           IS DISTINCT FROM (OLD.payment_id, OLD.business_id, OLD.method, OLD.amount_centavos) THEN
          RAISE EXCEPTION 'refunds: what a refund returns, and of which payment, cannot change'
            USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
        END IF;
        RETURN NEW;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER refunds_terms_fixed BEFORE UPDATE ON ${s}.refunds
      FOR EACH ROW EXECUTE FUNCTION ${s}.refuse_refund_terms_change()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await dropFinalRowGuard(queryRunner, 'refunds');
    await queryRunner.query(`DROP TABLE ${s}.refunds`);
    await queryRunner.query(`DROP FUNCTION ${s}.refuse_refund_insert_not_pending()`);
    await queryRunner.query(`DROP FUNCTION ${s}.refuse_refund_terms_change()`);
    await queryRunner.query(`
      ALTER TABLE ${s}.payments
        DROP CONSTRAINT payments_refunds_within_amount,
        DROP COLUMN refunded_centavos,
        DROP COLUMN refund_reserved_centavos,
        DROP COLUMN paid_at`);
  }
}
