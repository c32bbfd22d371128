import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * When the business's defence of a dispute reached the PSP (docs/adr/0033-med-disputes.md#decision): set once, while
 * the dispute is open, never cleared. A closed dispute is frozen as before (its final-row guard).
 */
export class DisputeDefence1764403000000 implements MigrationInterface {
  name = 'DisputeDefence1764403000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`ALTER TABLE ${s}.disputes ADD COLUMN defence_submitted_at timestamptz`);
    await queryRunner.query(`
      CREATE FUNCTION ${s}.refuse_dispute_defence_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF OLD.defence_submitted_at IS NOT NULL
           AND NEW.defence_submitted_at IS DISTINCT FROM OLD.defence_submitted_at THEN
          RAISE EXCEPTION 'disputes: a defence, once submitted, stays submitted'
            USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
        END IF;
        IF OLD.defence_submitted_at IS NULL AND NEW.defence_submitted_at IS NOT NULL AND OLD.status <> 'open' THEN
          RAISE EXCEPTION 'disputes: only an open dispute takes a defence'
            USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
        END IF;
        RETURN NEW;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER disputes_defence_once BEFORE UPDATE ON ${s}.disputes
      FOR EACH ROW EXECUTE FUNCTION ${s}.refuse_dispute_defence_change()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP TRIGGER disputes_defence_once ON ${s}.disputes`);
    await queryRunner.query(`DROP FUNCTION ${s}.refuse_dispute_defence_change()`);
    await queryRunner.query(`ALTER TABLE ${s}.disputes DROP COLUMN defence_submitted_at`);
  }
}
