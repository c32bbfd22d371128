import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/** The platform's operators (people, each their own account), and the links that invite them. */
export class DashboardOperators1764402200000 implements MigrationInterface {
  name = 'DashboardOperators1764402200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE TABLE ${s}.operators (
        user_id text PRIMARY KEY REFERENCES ${s}.users (id),
        invited_by text REFERENCES ${s}.users (id),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`ALTER TABLE ${s}.account_tokens DROP CONSTRAINT account_tokens_purpose_check`);
    await queryRunner.query(`
      ALTER TABLE ${s}.account_tokens ADD CONSTRAINT account_tokens_purpose_check
        CHECK (purpose IN ('verify_email', 'reset_password', 'operator_invitation'))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DELETE FROM ${s}.account_tokens WHERE purpose = 'operator_invitation'`);
    await queryRunner.query(`ALTER TABLE ${s}.account_tokens DROP CONSTRAINT account_tokens_purpose_check`);
    await queryRunner.query(`
      ALTER TABLE ${s}.account_tokens ADD CONSTRAINT account_tokens_purpose_check
        CHECK (purpose IN ('verify_email', 'reset_password'))`);
    await queryRunner.query(`DROP TABLE ${s}.operators`);
  }
}
