import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * Refund requests become intents (docs/refunds.md#the-balance-first): the amount a refund command asks the ledger to
 * reserve is recorded, with its payment, before the ledger is asked and outside any transaction held over that call.
 * A `reserving` intent counts against its payment's refundable rest, so racing refunds are still decided one after the
 * other; it becomes `opened` with its refund, or `given_up` (never a refund afterwards). Rows from before: a live id
 * with its refund is opened; a live id without one is given up (the ledger's sweep releases what it may hold).
 */
export class RefundIntents1764400700000 implements MigrationInterface {
  name = 'RefundIntents1764400700000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      ALTER TABLE ${s}.refund_requests
        ADD COLUMN payment_id text,
        ADD COLUMN amount_centavos bigint CHECK (amount_centavos > 0),
        ADD COLUMN status text NOT NULL DEFAULT 'reserving'
          CHECK (status IN ('reserving', 'opened', 'given_up'))`);
    await queryRunner.query(`
      UPDATE ${s}.refund_requests r SET status = 'opened', payment_id = f.payment_id, amount_centavos = f.amount_centavos
        FROM ${s}.refunds f WHERE f.id = r.refund_id`);
    await queryRunner.query(`
      UPDATE ${s}.refund_requests SET status = 'given_up', given_up_at = coalesce(given_up_at, now())
        WHERE status = 'reserving'`);
    await queryRunner.query(`ALTER TABLE ${s}.refund_requests ALTER COLUMN status DROP DEFAULT`);
    await queryRunner.query(`
      ALTER TABLE ${s}.refund_requests
        ADD CONSTRAINT refund_requests_given_up_dated CHECK ((status = 'given_up') = (given_up_at IS NOT NULL)),
        ADD CONSTRAINT refund_requests_reserving_known
          CHECK (status <> 'reserving' OR (payment_id IS NOT NULL AND amount_centavos IS NOT NULL))`);
    // The intents still being reserved, summed per payment when a refund of it is decided.
    await queryRunner.query(
      `CREATE INDEX refund_requests_reserving ON ${s}.refund_requests (payment_id) WHERE status = 'reserving'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP INDEX ${s}.refund_requests_reserving`);
    await queryRunner.query(`
      ALTER TABLE ${s}.refund_requests
        DROP CONSTRAINT refund_requests_reserving_known,
        DROP CONSTRAINT refund_requests_given_up_dated,
        DROP COLUMN status,
        DROP COLUMN amount_centavos,
        DROP COLUMN payment_id`);
  }
}
