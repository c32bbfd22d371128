import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

export class DashboardAccounts1764401400000 implements MigrationInterface {
  name = 'DashboardAccounts1764401400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE TABLE ${s}.users (
        id text PRIMARY KEY,
        email text NOT NULL UNIQUE CHECK (email = lower(email)),
        password_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE ${s}.businesses (
        id text PRIMARY KEY,
        name text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
        time_zone text NOT NULL,
        sealed_api_key text NOT NULL,
        api_key_prefix text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE ${s}.memberships (
        user_id text NOT NULL REFERENCES ${s}.users (id),
        business_id text NOT NULL REFERENCES ${s}.businesses (id),
        role text NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'viewer')),
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, business_id)
      )`);
    await queryRunner.query(`CREATE INDEX memberships_business ON ${s}.memberships (business_id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP TABLE ${s}.memberships`);
    await queryRunner.query(`DROP TABLE ${s}.businesses`);
    await queryRunner.query(`DROP TABLE ${s}.users`);
  }
}
