import type { MigrationInterface, QueryRunner } from 'typeorm';
import { allowChangeOnFinalRows, schemaOf } from '@gateway/persistence';

/**
 * A clock per recurrence (sandbox): how far ahead of the simulator's clock the recurrence and its cycles are
 * (`POST /sandbox/rec/{idRec}/relogio/avancar`), which only moves forward (a trigger refuses a move back), and the
 * failure the sandbox payer's bank keeps for the recurrence's next cycle not created yet
 * (`POST /sandbox/rec/{idRec}/falhar-proxima`). An ended recurrence's clock may still move (nothing of it falls due).
 */
export class PspRecClock1764403200900 implements MigrationInterface {
  name = 'PspRecClock1764403200900';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      ALTER TABLE ${s}.recs
        ADD COLUMN clock_offset_ms bigint NOT NULL DEFAULT 0 CHECK (clock_offset_ms >= 0),
        ADD COLUMN falhar_proxima text`);
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION ${s}.refuse_rec_clock_back() RETURNS trigger
      LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.clock_offset_ms < OLD.clock_offset_ms THEN
          RAISE EXCEPTION 'recs: the clock of % cannot move back', OLD.id_rec
            USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
        END IF;
        RETURN NEW;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER recs_clock_forward BEFORE UPDATE OF clock_offset_ms ON ${s}.recs
      FOR EACH ROW EXECUTE FUNCTION ${s}.refuse_rec_clock_back()`);
    await allowChangeOnFinalRows(queryRunner, 'recs', ['clock_offset_ms']);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP TRIGGER recs_clock_forward ON ${s}.recs`);
    await queryRunner.query(`DROP FUNCTION ${s}.refuse_rec_clock_back()`);
    await queryRunner.query(`ALTER TABLE ${s}.recs DROP COLUMN falhar_proxima, DROP COLUMN clock_offset_ms`);
  }
}
