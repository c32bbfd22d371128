import type { MigrationInterface, QueryRunner } from 'typeorm';
import { allowChangeOnFinalRows, schemaOf } from '@gateway/persistence';

/**
 * The payment change feed (docs/adr/0043-payment-lists-from-the-change-feed.md): every write of a payment stamps the row
 * with the id of the transaction that wrote it (`changed_xid`, set by the database whatever code path writes), and an
 * index serves the payments changed after a given transaction in that order. Rows written before this migration hold
 * 0, so a reader starting from 0 reads every payment once.
 */
export class PaymentChangeFeed1764403200410 implements MigrationInterface {
  name = 'PaymentChangeFeed1764403200410';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`ALTER TABLE ${s}.payments ADD COLUMN changed_xid xid8 NOT NULL DEFAULT '0'`);
    await queryRunner.query(`
      CREATE FUNCTION ${s}.stamp_payment_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.changed_xid := pg_current_xact_id();
        RETURN NEW;
      END $$`);
    // Named to fire before the final-row guard (triggers fire in name order), which then allows the stamp.
    await queryRunner.query(`
      CREATE TRIGGER payments_changed_xid BEFORE INSERT OR UPDATE ON ${s}.payments
      FOR EACH ROW EXECUTE FUNCTION ${s}.stamp_payment_change()`);
    await allowChangeOnFinalRows(queryRunner, 'payments', ['changed_xid']);
    await queryRunner.query(`CREATE INDEX payments_change_feed ON ${s}.payments (changed_xid, id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP TRIGGER payments_changed_xid ON ${s}.payments`);
    await queryRunner.query(`DROP FUNCTION ${s}.stamp_payment_change()`);
    await queryRunner.query(`ALTER TABLE ${s}.payments DROP COLUMN changed_xid`);
  }
}
