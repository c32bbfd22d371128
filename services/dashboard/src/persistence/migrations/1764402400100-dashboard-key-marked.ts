import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * Whether the gateway knows a business's key as the dashboard's own. The keys of existing businesses keep working as
 * they are; the dashboard marks them through the operator API when it starts, and records it here.
 */
export class DashboardKeyMarked1764402400100 implements MigrationInterface {
  name = 'DashboardKeyMarked1764402400100';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(
      `ALTER TABLE ${s}.businesses ADD COLUMN api_key_marked boolean NOT NULL DEFAULT false`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`ALTER TABLE ${s}.businesses DROP COLUMN api_key_marked`);
  }
}
