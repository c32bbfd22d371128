import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * A transfer is recorded per token transfer instruction, keyed by (signature, instruction): one instruction's money
 * can then be recorded for one request only, whichever replica or scan sees it first. Rows recorded before were one
 * per (signature, reference) and keep that as their instruction (`ref:<reference>`); such a transaction was counted
 * whole, so no instruction of it is recorded again (a row for it is skipped, as a duplicate is). An instruction
 * naming several payments' references is recorded once as `ambiguous`.
 */
export class TransfersOncePerInstruction1732400270000 implements MigrationInterface {
  name = 'TransfersOncePerInstruction1732400270000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`ALTER TABLE ${s}.transfers ADD COLUMN instruction text`);
    await queryRunner.query(`UPDATE ${s}.transfers SET instruction = 'ref:' || reference`);
    await queryRunner.query(`ALTER TABLE ${s}.transfers ALTER COLUMN instruction SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE ${s}.transfers DROP CONSTRAINT transfers_pkey`);
    await queryRunner.query(`ALTER TABLE ${s}.transfers ADD PRIMARY KEY (signature, instruction)`);
    await queryRunner.query(`CREATE INDEX transfers_by_reference ON ${s}.transfers (reference)`);
    // A transaction recorded before (under `ref:<reference>`) was counted whole, all its instructions at once: a scan
    // that reads it again (a reference rescanned after an amount change) must not count any instruction of it again.
    await queryRunner.query(`
      CREATE FUNCTION ${s}.skip_transfers_recorded_whole() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM ${s}.transfers
                    WHERE signature = NEW.signature AND instruction LIKE 'ref:%') THEN
          RETURN NULL;
        END IF;
        RETURN NEW;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER transfers_recorded_whole_once BEFORE INSERT ON ${s}.transfers
      FOR EACH ROW WHEN (NEW.instruction NOT LIKE 'ref:%') EXECUTE FUNCTION ${s}.skip_transfers_recorded_whole()`);
    await queryRunner.query(`ALTER TABLE ${s}.transfers DROP CONSTRAINT transfers_applied_to_check`);
    await queryRunner.query(
      `ALTER TABLE ${s}.transfers ADD CONSTRAINT transfers_applied_to_check
         CHECK (applied_to IN ('payment', 'late', 'wrong_mint', 'superseded', 'ambiguous'))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DELETE FROM ${s}.transfers WHERE applied_to = 'ambiguous'`);
    await queryRunner.query(`ALTER TABLE ${s}.transfers DROP CONSTRAINT transfers_applied_to_check`);
    await queryRunner.query(
      `ALTER TABLE ${s}.transfers ADD CONSTRAINT transfers_applied_to_check
         CHECK (applied_to IN ('payment', 'late', 'wrong_mint', 'superseded'))`,
    );
    await queryRunner.query(`DROP TRIGGER transfers_recorded_whole_once ON ${s}.transfers`);
    await queryRunner.query(`DROP FUNCTION ${s}.skip_transfers_recorded_whole()`);
    await queryRunner.query(`DROP INDEX ${s}.transfers_by_reference`);
    await queryRunner.query(`ALTER TABLE ${s}.transfers DROP CONSTRAINT transfers_pkey`);
    // Two instructions of one transaction to one reference cannot both stay under the old key: the first stands.
    await queryRunner.query(`
      DELETE FROM ${s}.transfers later USING ${s}.transfers earlier
       WHERE later.signature = earlier.signature AND later.reference = earlier.reference
         AND later.instruction > earlier.instruction`);
    await queryRunner.query(`ALTER TABLE ${s}.transfers ADD PRIMARY KEY (signature, reference)`);
    await queryRunner.query(`ALTER TABLE ${s}.transfers DROP COLUMN instruction`);
  }
}
