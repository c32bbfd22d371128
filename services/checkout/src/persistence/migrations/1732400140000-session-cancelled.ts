import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/** A session whose payment the merchant cancelled ends `cancelled` (the hosted page then offers a new attempt). */
export class SessionCancelled1732400140000 implements MigrationInterface {
  name = 'SessionCancelled1732400140000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      ALTER TABLE ${s}.sessions
        DROP CONSTRAINT sessions_status_check,
        ADD CONSTRAINT sessions_status_check
          CHECK (status IN ('initiated', 'paid', 'expired', 'failed', 'cancelled'))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      ALTER TABLE ${s}.sessions
        DROP CONSTRAINT sessions_status_check,
        ADD CONSTRAINT sessions_status_check CHECK (status IN ('initiated', 'paid', 'expired', 'failed'))`);
  }
}
