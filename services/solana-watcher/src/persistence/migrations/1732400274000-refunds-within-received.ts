import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * The refunds of a payment (those not failed) never pay out more base units than the transfers that paid it brought
 * (the transfers applied to its settled request): the database refuses the refund that would, whatever code path
 * records it. Refunds of one payment are serialised by the same advisory lock the refund desk takes, so two racing
 * inserts cannot both pass. What a refund pays is fixed once recorded, so checking its insert is enough.
 */
export class RefundsWithinReceived1732400274000 implements MigrationInterface {
  name = 'RefundsWithinReceived1732400274000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE FUNCTION ${s}.refuse_refunds_past_received() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        committed numeric;
        received numeric;
      BEGIN
        IF NEW.status = 'failed' THEN
          RETURN NEW;
        END IF;
        PERFORM pg_advisory_xact_lock(hashtext('refunds:' || NEW.payment_id));
        SELECT COALESCE(SUM(amount_base_units), 0) INTO committed FROM ${s}.crypto_refunds
         WHERE payment_id = NEW.payment_id AND status <> 'failed' AND refund_id <> NEW.refund_id;
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
    await queryRunner.query(`
      CREATE TRIGGER crypto_refunds_within_received BEFORE INSERT ON ${s}.crypto_refunds
      FOR EACH ROW EXECUTE FUNCTION ${s}.refuse_refunds_past_received()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP TRIGGER crypto_refunds_within_received ON ${s}.crypto_refunds`);
    await queryRunner.query(`DROP FUNCTION ${s}.refuse_refunds_past_received()`);
  }
}
