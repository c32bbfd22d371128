import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * The operator's return of held received funds (late, excess or unmatched tokens) is carried out on chain by the
 * refund desk, as a row of `crypto_refunds` with the same state machine: `refund_id` is the return's attempt id and
 * `funds_id` names the funds (fixed once written). It sends back the funds' own tokens, never the payment's: it does
 * not count against what the payment's refunds may pay out (migration 1732400274000), and a return pays out at most
 * the base units of the transfers it returns, each attempt not failed once.
 */
export class FundsReturns1764401100002 implements MigrationInterface {
  name = 'FundsReturns1764401100002';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`ALTER TABLE ${s}.crypto_refunds ADD COLUMN funds_id text`);
    await queryRunner.query(`
      CREATE UNIQUE INDEX crypto_refunds_funds_returned_once ON ${s}.crypto_refunds (funds_id)
        WHERE funds_id IS NOT NULL AND status <> 'failed'`);
    await queryRunner.query(`
      CREATE FUNCTION ${s}.refuse_crypto_refund_funds_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'crypto_refunds: whether a transfer returns held funds cannot change'
          USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER crypto_refunds_funds_fixed BEFORE UPDATE ON ${s}.crypto_refunds
      FOR EACH ROW WHEN (NEW.funds_id IS DISTINCT FROM OLD.funds_id)
      EXECUTE FUNCTION ${s}.refuse_crypto_refund_funds_change()`);
    await this.refundsOfPayment(queryRunner, `AND funds_id IS NULL`);
    await queryRunner.query(`DROP TRIGGER crypto_refunds_within_received ON ${s}.crypto_refunds`);
    await queryRunner.query(`
      CREATE TRIGGER crypto_refunds_within_received BEFORE INSERT ON ${s}.crypto_refunds
      FOR EACH ROW WHEN (NEW.funds_id IS NULL) EXECUTE FUNCTION ${s}.refuse_refunds_past_received()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP TRIGGER crypto_refunds_within_received ON ${s}.crypto_refunds`);
    await queryRunner.query(`
      CREATE TRIGGER crypto_refunds_within_received BEFORE INSERT ON ${s}.crypto_refunds
      FOR EACH ROW EXECUTE FUNCTION ${s}.refuse_refunds_past_received()`);
    await this.refundsOfPayment(queryRunner, '');
    await queryRunner.query(`DROP TRIGGER crypto_refunds_funds_fixed ON ${s}.crypto_refunds`);
    await queryRunner.query(`DROP FUNCTION ${s}.refuse_crypto_refund_funds_change()`);
    await queryRunner.query(`DROP INDEX ${s}.crypto_refunds_funds_returned_once`);
    await queryRunner.query(`ALTER TABLE ${s}.crypto_refunds DROP COLUMN funds_id`);
  }

  /** The check of migration 1732400274000, counting the payment's refunds that `refunds` selects. */
  private async refundsOfPayment(queryRunner: QueryRunner, refunds: string): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION ${s}.refuse_refunds_past_received() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        committed numeric;
        received numeric;
      BEGIN
        IF NEW.status = 'failed' THEN
          RETURN NEW;
        END IF;
        PERFORM pg_advisory_xact_lock(hashtext('refunds:' || NEW.payment_id));
        SELECT COALESCE(SUM(amount_base_units), 0) INTO committed FROM ${s}.crypto_refunds
         WHERE payment_id = NEW.payment_id AND status <> 'failed' AND refund_id <> NEW.refund_id ${refunds};
        SELECT COALESCE(SUM(t.amount), 0) INTO received
          FROM ${s}.transfers t JOIN ${s}.payment_requests r ON r.reference = t.reference
         WHERE r.payment_id = NEW.payment_id AND r.status = 'settled' AND t.applied_to = 'payment';
        IF committed + NEW.amount_base_units > received THEN
          RAISE EXCEPTION 'crypto_refunds: refunds of % would pay % base units, it received %', NEW.payment_id,
            committed + NEW.amount_base_units, received
            USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
        END IF;
        RETURN NEW;
      END $$`);
  }
}
