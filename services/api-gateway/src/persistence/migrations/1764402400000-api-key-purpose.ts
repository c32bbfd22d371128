import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * Whom a key is for: every key so far is a merchant's (the dashboard's existing keys keep working as they are, and
 * the dashboard marks them as its own through the operator API when it starts).
 */
export class ApiKeyPurpose1764402400000 implements MigrationInterface {
  name = 'ApiKeyPurpose1764402400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      ALTER TABLE ${s}.api_keys
        ADD COLUMN purpose text NOT NULL DEFAULT 'merchant' CHECK (purpose IN ('merchant', 'dashboard'))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`ALTER TABLE ${s}.api_keys DROP COLUMN purpose`);
  }
}
