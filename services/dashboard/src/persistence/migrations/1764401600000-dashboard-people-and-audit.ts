import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * People and their trail: whether a person's e-mail is verified and when their password last changed (sessions from
 * before it end), the one-time tokens mailed to them (only their SHA-256 kept), team invitations, and the audit log,
 * which the database keeps append-only.
 */
export class DashboardPeopleAndAudit1764401600000 implements MigrationInterface {
  name = 'DashboardPeopleAndAudit1764401600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`ALTER TABLE ${s}.users ADD COLUMN email_verified_at timestamptz`);
    await queryRunner.query(`ALTER TABLE ${s}.users ADD COLUMN password_changed_at timestamptz`);
    await queryRunner.query(`
      CREATE TABLE ${s}.account_tokens (
        token_hash text PRIMARY KEY CHECK (token_hash ~ '^[0-9a-f]{64}$'),
        purpose text NOT NULL CHECK (purpose IN ('verify_email', 'reset_password')),
        user_id text NOT NULL REFERENCES ${s}.users (id),
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX account_tokens_user ON ${s}.account_tokens (user_id, purpose)`);
    await queryRunner.query(`
      CREATE TABLE ${s}.invitations (
        id text PRIMARY KEY,
        business_id text NOT NULL REFERENCES ${s}.businesses (id),
        email text NOT NULL CHECK (email = lower(email)),
        role text NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'viewer')),
        token_hash text NOT NULL UNIQUE CHECK (token_hash ~ '^[0-9a-f]{64}$'),
        invited_by text NOT NULL REFERENCES ${s}.users (id),
        expires_at timestamptz NOT NULL,
        accepted_at timestamptz,
        accepted_by text REFERENCES ${s}.users (id),
        revoked_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(
      `CREATE INDEX invitations_business ON ${s}.invitations (business_id, created_at)`,
    );
    await queryRunner.query(`
      CREATE TABLE ${s}.audit_entries (
        id bigserial PRIMARY KEY,
        business_id text,
        actor_user_id text,
        actor_email text,
        action text NOT NULL,
        target text,
        details jsonb NOT NULL DEFAULT '{}',
        client_address text,
        user_agent text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(
      `CREATE INDEX audit_entries_business ON ${s}.audit_entries (business_id, id DESC)`,
    );
    await queryRunner.query(`
      CREATE FUNCTION ${s}.audit_entries_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'audit entries are append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER audit_entries_no_change BEFORE UPDATE OR DELETE ON ${s}.audit_entries
      FOR EACH ROW EXECUTE FUNCTION ${s}.audit_entries_append_only()`);
    await queryRunner.query(`
      CREATE TRIGGER audit_entries_no_truncate BEFORE TRUNCATE ON ${s}.audit_entries
      FOR EACH STATEMENT EXECUTE FUNCTION ${s}.audit_entries_append_only()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP TABLE ${s}.audit_entries`);
    await queryRunner.query(`DROP FUNCTION ${s}.audit_entries_append_only()`);
    await queryRunner.query(`DROP TABLE ${s}.invitations`);
    await queryRunner.query(`DROP TABLE ${s}.account_tokens`);
    await queryRunner.query(`ALTER TABLE ${s}.users DROP COLUMN password_changed_at`);
    await queryRunner.query(`ALTER TABLE ${s}.users DROP COLUMN email_verified_at`);
  }
}
