import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * The operator's return of held received funds (a late Pix, an overpayment's excess) is a devolução too, carried out
 * by the same rows, requests, callbacks and polls as a refund's: `refund_id` is then the return's attempt id and
 * `funds_id` names the funds, whose Pix (`end_to_end_id`) is returned. Which outcome event a row settles with follows
 * from it, so it is fixed once written.
 */
export class FundsReturns1764401100001 implements MigrationInterface {
  name = 'FundsReturns1764401100001';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`ALTER TABLE ${s}.pix_refunds ADD COLUMN funds_id text`);
    await queryRunner.query(`
      CREATE FUNCTION ${s}.refuse_pix_refund_funds_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'pix_refunds: whether a devolução returns held funds cannot change'
          USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER pix_refunds_funds_fixed BEFORE UPDATE ON ${s}.pix_refunds
      FOR EACH ROW WHEN (NEW.funds_id IS DISTINCT FROM OLD.funds_id)
      EXECUTE FUNCTION ${s}.refuse_pix_refund_funds_change()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP TRIGGER pix_refunds_funds_fixed ON ${s}.pix_refunds`);
    await queryRunner.query(`DROP FUNCTION ${s}.refuse_pix_refund_funds_change()`);
    await queryRunner.query(`ALTER TABLE ${s}.pix_refunds DROP COLUMN funds_id`);
  }
}
