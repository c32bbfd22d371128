import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * The refund id each refund command reserved its money under at the ledger (docs/refunds.md#the-balance-first): a
 * redelivered command finds its id again, so it never reserves twice. An id given up (its refund never opened, so the
 * ledger released its reservation) can never become a refund: a later delivery of the same command gets a new id.
 */
export class RefundRequests1764400300001 implements MigrationInterface {
  name = 'RefundRequests1764400300001';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE TABLE ${s}.refund_requests (
        refund_id text PRIMARY KEY,
        message_id text NOT NULL,
        given_up_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    // One live id per command message.
    await queryRunner.query(
      `CREATE UNIQUE INDEX refund_requests_live ON ${s}.refund_requests (message_id) WHERE given_up_at IS NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP TABLE ${s}.refund_requests`);
  }
}
