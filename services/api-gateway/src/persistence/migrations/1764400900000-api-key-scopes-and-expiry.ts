import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * A key may be limited to scopes (null: every scope, as every key issued before), may expire (a rolled key, after
 * its overlap), and names the key it was rolled to: a key is rolled once.
 */
export class ApiKeyScopesAndExpiry1764400900000 implements MigrationInterface {
  name = 'ApiKeyScopesAndExpiry1764400900000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      ALTER TABLE ${s}.api_keys
        ADD COLUMN scopes text[] CHECK (cardinality(scopes) > 0),
        ADD COLUMN expires_at timestamptz,
        ADD COLUMN rolled_to text UNIQUE REFERENCES ${s}.api_keys (key_prefix)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    // Without these columns a limited or rolled key would do everything again, forever: they are revoked first.
    await queryRunner.query(
      `UPDATE ${s}.api_keys SET revoked_at = coalesce(revoked_at, now())
        WHERE scopes IS NOT NULL OR expires_at IS NOT NULL OR rolled_to IS NOT NULL`,
    );
    await queryRunner.query(
      `ALTER TABLE ${s}.api_keys DROP COLUMN rolled_to, DROP COLUMN expires_at, DROP COLUMN scopes`,
    );
  }
}
