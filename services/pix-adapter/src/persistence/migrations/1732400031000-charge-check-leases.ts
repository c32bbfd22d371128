import type { MigrationInterface, QueryRunner } from 'typeorm';
import { allowChangeOnFinalRows, schemaOf } from '@gateway/persistence';

/**
 * The cob is read at the PSP outside any transaction, so whoever re-checks a charge (the expiry sweeper, the poll
 * for overdue callbacks) claims it until `claimed_until` instead of holding its row lock across the call. PIX found
 * by the poll (or by a status read) are recorded with source `poll`.
 */
export class ChargeCheckLeases1732400031000 implements MigrationInterface {
  name = 'ChargeCheckLeases1732400031000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`ALTER TABLE ${s}.charges ADD COLUMN claimed_until timestamptz`);
    // A claim says nothing about the charge's outcome: a check that ends after the charge closed still releases it.
    await allowChangeOnFinalRows(queryRunner, 'charges', ['claimed_until']);
    await queryRunner.query(
      `CREATE INDEX charges_active_created ON ${s}.charges (created_at) WHERE status = 'active'`,
    );
    await queryRunner.query(`
      ALTER TABLE ${s}.callbacks_received
        DROP CONSTRAINT callbacks_received_source_check,
        ADD CONSTRAINT callbacks_received_source_check CHECK (source IN ('callback', 'sweep', 'poll'))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      ALTER TABLE ${s}.callbacks_received
        DROP CONSTRAINT callbacks_received_source_check,
        ADD CONSTRAINT callbacks_received_source_check CHECK (source IN ('callback', 'sweep'))`);
    await queryRunner.query(`DROP INDEX ${s}.charges_active_created`);
    await queryRunner.query(`ALTER TABLE ${s}.charges DROP COLUMN claimed_until`);
  }
}
