import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * When the PSP first answered that it does not know an active charge (null while it knows it): the charge is logged
 * once, then failed if the PSP still does not know it after a grace period (PSP_UNKNOWN_CHARGE_GRACE_SECONDS).
 */
export class ChargesUnknownAtPsp1764380100000 implements MigrationInterface {
  name = 'ChargesUnknownAtPsp1764380100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE ${schemaOf(queryRunner)}.charges ADD COLUMN unknown_at_psp_since timestamptz`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE ${schemaOf(queryRunner)}.charges DROP COLUMN unknown_at_psp_since`);
  }
}
