import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * The sweep of the MED window (every Pix received in the last 80 days, listed again for a MED whose first callback was
 * lost) runs inside the overdue-callback pass, under its lease and its request budget: a sweep the budget cuts short
 * goes on the next minute from the page where it stopped. `med_sweep_fim` is the end of the period of the sweep under
 * way (null: none), `med_sweep_page` the next page to read, `med_swept_at` when the last sweep read the whole window.
 */
export class MedSweepProgress1764402900100 implements MigrationInterface {
  name = 'MedSweepProgress1764402900100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE ${schemaOf(queryRunner)}.received_pix_poll
        ADD COLUMN med_sweep_fim timestamptz,
        ADD COLUMN med_sweep_page integer NOT NULL DEFAULT 0 CHECK (med_sweep_page >= 0),
        ADD COLUMN med_swept_at timestamptz NOT NULL DEFAULT '-infinity'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE ${schemaOf(queryRunner)}.received_pix_poll
        DROP COLUMN med_sweep_fim, DROP COLUMN med_sweep_page, DROP COLUMN med_swept_at`);
  }
}
