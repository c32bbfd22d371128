import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

export class IdentityAndIdempotency1732300007000 implements MigrationInterface {
  name = 'IdentityAndIdempotency1732300007000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE TABLE ${s}.businesses (
        id text PRIMARY KEY,
        name text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE ${s}.api_keys (
        key_prefix text PRIMARY KEY,
        hash bytea NOT NULL,
        business_id text NOT NULL REFERENCES ${s}.businesses (id),
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX api_keys_business ON ${s}.api_keys (business_id)`);
    await queryRunner.query(`
      CREATE TABLE ${s}.idempotency_keys (
        business_id text NOT NULL,
        key text NOT NULL,
        request_hash bytea NOT NULL,
        state text NOT NULL CHECK (state IN ('in_progress', 'done')),
        response_status integer,
        response_body text,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (business_id, key)
      )`);
    await queryRunner.query(`CREATE INDEX idempotency_keys_expiry ON ${s}.idempotency_keys (expires_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP TABLE ${s}.idempotency_keys`);
    await queryRunner.query(`DROP TABLE ${s}.api_keys`);
    await queryRunner.query(`DROP TABLE ${s}.businesses`);
  }
}
