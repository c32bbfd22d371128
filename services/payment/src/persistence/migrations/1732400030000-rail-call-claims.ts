import type { MigrationInterface, QueryRunner } from 'typeorm';
import { allowChangeOnFinalRows, schemaOf } from '@gateway/persistence';

/**
 * Rail calls are made outside any transaction, so what a row lock used to guard is now a claim on the payment:
 * `update_message_id`/`update_claimed_until` let one amount change at a time call the rail, and `reconcile_after`
 * spaces out (and shares between replicas) the reconciliation's questions to the rails. None of them is frozen on
 * a final payment: they say nothing about its outcome.
 */
export class RailCallClaims1732400030000 implements MigrationInterface {
  name = 'RailCallClaims1732400030000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      ALTER TABLE ${s}.payments
        ADD COLUMN update_message_id text,
        ADD COLUMN update_claimed_until timestamptz,
        ADD COLUMN reconcile_after timestamptz`);
    await allowChangeOnFinalRows(queryRunner, 'payments', [
      'update_message_id',
      'update_claimed_until',
      'reconcile_after',
    ]);
    await queryRunner.query(
      `CREATE INDEX payments_open_by_age ON ${s}.payments (created_at) WHERE status IN ('pending', 'processing')`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP INDEX ${s}.payments_open_by_age`);
    await queryRunner.query(`
      ALTER TABLE ${s}.payments
        DROP COLUMN update_message_id, DROP COLUMN update_claimed_until, DROP COLUMN reconcile_after`);
  }
}
