import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/** A product is `active` or `inactive`; an inactive one is sold by no new checkout. Every existing product is active. */
export class ProductStatus1764402300000 implements MigrationInterface {
  name = 'ProductStatus1764402300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      ALTER TABLE ${s}.products
        ADD COLUMN status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'inactive'))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`ALTER TABLE ${s}.products DROP COLUMN status`);
  }
}
