import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * Businesses' own PSP accounts (the direct model): at most one in force per business; its secret and certificate only
 * sealed (`v1:` AES-256-GCM values). Each charge records the account it was opened at (null: the platform's), so its
 * later calls and callbacks go there.
 */
export class PspAccounts1764402900000 implements MigrationInterface {
  name = 'PspAccounts1764402900000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE TABLE ${s}.psp_accounts (
        account_id text PRIMARY KEY,
        business_id text NOT NULL,
        profile text NOT NULL,
        base_url text NOT NULL,
        oauth_token_url text NOT NULL,
        client_id text NOT NULL,
        client_secret_sealed text CHECK (client_secret_sealed LIKE 'v1:%'),
        certificate_sealed text CHECK (certificate_sealed LIKE 'v1:%'),
        certificate_passphrase_sealed text CHECK (certificate_passphrase_sealed LIKE 'v1:%'),
        pix_key text NOT NULL,
        developer_app_key text,
        account_number text,
        revision integer NOT NULL CHECK (revision >= 1),
        retired_at timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX psp_accounts_in_force ON ${s}.psp_accounts (business_id) WHERE retired_at IS NULL`,
    );
    await queryRunner.query(
      `ALTER TABLE ${s}.charges ADD COLUMN psp_account_id text REFERENCES ${s}.psp_accounts (account_id)`,
    );
    await queryRunner.query(
      `CREATE INDEX charges_open_by_psp_account ON ${s}.charges (psp_account_id) WHERE status = 'active'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`ALTER TABLE ${s}.charges DROP COLUMN psp_account_id`);
    await queryRunner.query(`DROP TABLE ${s}.psp_accounts`);
  }
}
