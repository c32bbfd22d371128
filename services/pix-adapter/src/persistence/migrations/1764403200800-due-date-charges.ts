import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * A charge with a due date (API Pix `cobv`) keeps the rules it was opened with (`due`: the `pix.due` of its payment,
 * centavos and basis points), by which each Pix paid into it is bounded; an immediate charge (`cob`) has none. Set
 * once when the charge is opened.
 */
export class DueDateCharges1764403200800 implements MigrationInterface {
  name = 'DueDateCharges1764403200800';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      ALTER TABLE ${s}.charges
        ADD COLUMN due jsonb,
        ADD CONSTRAINT charges_due_is_rules CHECK (due IS NULL OR (jsonb_typeof(due) = 'object' AND due ? 'date'))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE ${schemaOf(queryRunner)}.charges DROP COLUMN due`);
  }
}
