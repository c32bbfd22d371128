import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * Payment lists from the gateway's copies (docs/adr/0043-payment-lists-from-the-change-feed.md): each copy keeps the
 * columns a list is filtered and ordered by (set from its record by the database), and `payment_copy_feed` holds where
 * the gateway stands in the payment service's change feed (one row: the position and the copies' generation).
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
    // Copies marked while a change is in flight, found fast (a list filtered by status looks for any of the business's).
    await queryRunner.query(
      `CREATE INDEX payment_copies_marked ON ${s}.payment_copies (business_id) WHERE version < stale_below`,
    );
    // Generations come from a sequence: a row deleted and made again never takes one a read in progress holds.
    await queryRunner.query(`CREATE SEQUENCE ${s}.payment_copy_feed_generation`);
    await queryRunner.query(`
      CREATE TABLE ${s}.payment_copy_feed (
        id boolean PRIMARY KEY DEFAULT true CHECK (id),
        settled_below xid8 NOT NULL DEFAULT '0',
        generation bigint NOT NULL DEFAULT nextval('${s}.payment_copy_feed_generation'),
        moved_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`INSERT INTO ${s}.payment_copy_feed (id) VALUES (true)`);
    // A position is true only of the copies it was recorded with: copies deleted (an operator, a restore, a feed that
    // went back), it goes back to the feed's start, and the generation moves on, so a read begun before neither stores
    // into the rebuild nor records its position over it. The row is made again if it was deleted.
    await queryRunner.query(`
      CREATE FUNCTION ${s}.forget_payment_copy_feed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO ${s}.payment_copy_feed AS feed (id) VALUES (true)
        ON CONFLICT (id) DO UPDATE
          SET settled_below = '0', generation = nextval('${s}.payment_copy_feed_generation'), moved_at = now();
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER payment_copies_deleted AFTER DELETE OR TRUNCATE ON ${s}.payment_copies
      FOR EACH STATEMENT EXECUTE FUNCTION ${s}.forget_payment_copy_feed()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP TRIGGER payment_copies_deleted ON ${s}.payment_copies`);
    await queryRunner.query(`DROP FUNCTION ${s}.forget_payment_copy_feed()`);
    await queryRunner.query(`DROP TABLE ${s}.payment_copy_feed`);
    await queryRunner.query(`DROP SEQUENCE ${s}.payment_copy_feed_generation`);
    await queryRunner.query(`DROP INDEX ${s}.payment_copies_marked`);
    await queryRunner.query(`DROP INDEX ${s}.payment_copies_listed`);
    await queryRunner.query(`DROP TRIGGER payment_copies_listed ON ${s}.payment_copies`);
    await queryRunner.query(`DROP FUNCTION ${s}.list_payment_copy()`);
    await queryRunner.query(
      `ALTER TABLE ${s}.payment_copies DROP COLUMN created_at, DROP COLUMN status, DROP COLUMN method`,
    );
  }
}
