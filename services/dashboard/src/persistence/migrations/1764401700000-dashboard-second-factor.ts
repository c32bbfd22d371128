import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

export class DashboardSecondFactor1764401700000 implements MigrationInterface {
  name = 'DashboardSecondFactor1764401700000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE TABLE ${s}.second_factors (
        user_id text PRIMARY KEY REFERENCES ${s}.users (id),
        sealed_secret text NOT NULL,
        confirmed_at timestamptz,
        last_used_step bigint,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE ${s}.recovery_codes (
        user_id text NOT NULL REFERENCES ${s}.users (id),
        code_hash text NOT NULL,
        used_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, code_hash)
      )`);
    await queryRunner.query(`
      CREATE TABLE ${s}.payout_accounts (
        business_id text PRIMARY KEY REFERENCES ${s}.businesses (id),
        pix_key_type text NOT NULL CHECK (pix_key_type IN ('cpf', 'cnpj', 'email', 'phone', 'evp')),
        pix_key_hint text NOT NULL,
        updated_by text NOT NULL REFERENCES ${s}.users (id),
        updated_at timestamptz NOT NULL
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP TABLE ${s}.payout_accounts`);
    await queryRunner.query(`DROP TABLE ${s}.recovery_codes`);
    await queryRunner.query(`DROP TABLE ${s}.second_factors`);
  }
}
