import type { MigrationInterface, QueryRunner } from 'typeorm';
import { allowChangeOnFinalRows, dropFinalRowGuard, guardFinalRows, schemaOf } from '@gateway/persistence';

/**
 * Disputes (MED) of paid PIX payments (docs/adr/0033-med-disputes.md). The database keeps their rules: a dispute starts
 * `open` and moves once, to `won` or `lost`, then is frozen; one dispute per MED devolução (`external_id`); what it
 * claims and of which payment never changes. A payment's disputes not won (`disputed_centavos`) and its refunds not
 * failed together never exceed its amount: the payer cannot get the same money back twice.
 */
export class Disputes1764402600000 implements MigrationInterface {
  name = 'Disputes1764402600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      ALTER TABLE ${s}.payments
        ADD COLUMN disputed_centavos bigint NOT NULL DEFAULT 0,
        -- Named to be checked after payments_refunds_within_amount (constraints are checked in name order).
        ADD CONSTRAINT payments_within_amount_with_disputes CHECK (
          0 <= disputed_centavos AND refund_reserved_centavos + disputed_centavos <= amount_centavos)`);
    await allowChangeOnFinalRows(queryRunner, 'payments', ['disputed_centavos']);
    await queryRunner.query(`
      CREATE TABLE ${s}.disputes (
        id text PRIMARY KEY,
        payment_id text NOT NULL REFERENCES ${s}.payments (id),
        business_id text NOT NULL,
        method text NOT NULL CHECK (method = 'pix'),
        external_id text NOT NULL UNIQUE,
        amount_centavos bigint NOT NULL CHECK (amount_centavos > 0),
        status text NOT NULL CHECK (status IN ('open', 'won', 'lost')),
        reason text CHECK (char_length(reason) <= 500),
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    await queryRunner.query(
      `CREATE INDEX disputes_page ON ${s}.disputes (business_id, created_at DESC, id DESC)`,
    );
    await guardFinalRows(queryRunner, {
      table: 'disputes',
      finalStatuses: ['won', 'lost'],
      changeableColumns: [],
    });
    // Opened only on a paid payment, open, and for at most its amount.
    await queryRunner.query(`
      CREATE FUNCTION ${s}.refuse_dispute_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        paid_amount bigint;
      BEGIN
        IF NEW.status <> 'open' THEN
          RAISE EXCEPTION 'disputes: a dispute starts open, not %', NEW.status
            USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
        END IF;
        SELECT amount_centavos INTO paid_amount FROM ${s}.payments
          WHERE id = NEW.payment_id AND business_id = NEW.business_id AND status = 'paid';
        IF paid_amount IS NULL OR NEW.amount_centavos > paid_amount THEN
          RAISE EXCEPTION 'disputes: a dispute claims at most its paid payment''s amount'
            USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
        END IF;
        RETURN NEW;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER disputes_start_open BEFORE INSERT ON ${s}.disputes
      FOR EACH ROW EXECUTE FUNCTION ${s}.refuse_dispute_insert()`);
    await queryRunner.query(`
      CREATE FUNCTION ${s}.refuse_dispute_terms_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF (NEW.id, NEW.payment_id, NEW.business_id, NEW.method, NEW.external_id, NEW.amount_centavos, NEW.created_at)
           IS DISTINCT FROM
           (OLD.id, OLD.payment_id, OLD.business_id, OLD.method, OLD.external_id, OLD.amount_centavos, OLD.created_at)
        THEN
          RAISE EXCEPTION 'disputes: what a dispute claims, and of which payment, cannot change'
            USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
        END IF;
        RETURN NEW;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER disputes_terms_fixed BEFORE UPDATE ON ${s}.disputes
      FOR EACH ROW EXECUTE FUNCTION ${s}.refuse_dispute_terms_change()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await dropFinalRowGuard(queryRunner, 'disputes');
    await queryRunner.query(`DROP TABLE ${s}.disputes`);
    await queryRunner.query(`DROP FUNCTION ${s}.refuse_dispute_insert()`);
    await queryRunner.query(`DROP FUNCTION ${s}.refuse_dispute_terms_change()`);
    await queryRunner.query(
      `ALTER TABLE ${s}.payments DROP CONSTRAINT payments_within_amount_with_disputes, DROP COLUMN disputed_centavos`,
    );
  }
}
