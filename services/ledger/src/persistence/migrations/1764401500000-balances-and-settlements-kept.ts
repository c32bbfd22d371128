import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * A business's balance row and a payment's settlement are never removed. The balance↔entries check compares only what
 * a transaction changed, so a deleted balance (recreated at zero by the next posting) or a truncated table would leave
 * balances that no longer equal their entries, unnoticed; a deleted settlement would leave its remainder in `pending`
 * for ever. Both stay updatable: the code moves a balance with its entries and settles a settlement once.
 */
export class BalancesAndSettlementsKept1764401500000 implements MigrationInterface {
  name = 'BalancesAndSettlementsKept1764401500000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE FUNCTION ${s}.refuse_book_removal() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'ledger % are never removed: % refused (a correction is a journal)', TG_TABLE_NAME, TG_OP
          USING ERRCODE = 'integrity_constraint_violation';
      END $$`);
    for (const table of ['balances', 'settlements']) {
      await queryRunner.query(`
        CREATE TRIGGER ${table}_not_deleted BEFORE DELETE ON ${s}.${table}
        FOR EACH ROW EXECUTE FUNCTION ${s}.refuse_book_removal()`);
      await queryRunner.query(`
        CREATE TRIGGER ${table}_not_truncated BEFORE TRUNCATE ON ${s}.${table}
        FOR EACH STATEMENT EXECUTE FUNCTION ${s}.refuse_book_removal()`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    for (const table of ['settlements', 'balances']) {
      await queryRunner.query(`DROP TRIGGER ${table}_not_truncated ON ${s}.${table}`);
      await queryRunner.query(`DROP TRIGGER ${table}_not_deleted ON ${s}.${table}`);
    }
    await queryRunner.query(`DROP FUNCTION ${s}.refuse_book_removal()`);
  }
}
