import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * Payment lists from the gateway's copies (docs/adr/0043-payment-lists-from-the-change-feed.md): each copy keeps the
 * columns a list is filtered and ordered by (set from its record by the database), and `payment_copy_feed` holds where the gateway stands in the payment
 * service's change feed (one row; none means "read the feed from its start", which is how the copies rebuild).
 */
export class PaymentCopyLists1764403200420 implements MigrationInterface {
  name = 'PaymentCopyLists1764403200420';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      ALTER TABLE ${s}.payment_copies
        ADD COLUMN created_at timestamptz, ADD COLUMN status text, ADD COLUMN method text`);
    // Set from the record by the database, whoever writes it (a gateway of the release before, during a rollout).
    await queryRunner.query(`
      CREATE FUNCTION ${s}.list_payment_copy() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.created_at := (NEW.record->>'created_at')::timestamptz;
        NEW.status := NEW.record->>'status';
        NEW.method := NEW.record->>'method';
        RETURN NEW;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER payment_copies_listed BEFORE INSERT OR UPDATE ON ${s}.payment_copies
      FOR EACH ROW EXECUTE FUNCTION ${s}.list_payment_copy()`);
    await queryRunner.query(`UPDATE ${s}.payment_copies SET record = record`);
    await queryRunner.query(`
      ALTER TABLE ${s}.payment_copies
        ALTER COLUMN created_at SET NOT NULL, ALTER COLUMN status SET NOT NULL, ALTER COLUMN method SET NOT NULL`);
    await queryRunner.query(
      `CREATE INDEX payment_copies_listed ON ${s}.payment_copies (business_id, created_at DESC, payment_id DESC)`,
    );
    await queryRunner.query(`
      CREATE TABLE ${s}.payment_copy_feed (
        id boolean PRIMARY KEY DEFAULT true CHECK (id),
        settled_below xid8 NOT NULL,
        moved_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP TABLE ${s}.payment_copy_feed`);
    await queryRunner.query(`DROP INDEX ${s}.payment_copies_listed`);
    await queryRunner.query(`DROP TRIGGER payment_copies_listed ON ${s}.payment_copies`);
    await queryRunner.query(`DROP FUNCTION ${s}.list_payment_copy()`);
    await queryRunner.query(
      `ALTER TABLE ${s}.payment_copies DROP COLUMN created_at, DROP COLUMN status, DROP COLUMN method`,
    );
  }
}
