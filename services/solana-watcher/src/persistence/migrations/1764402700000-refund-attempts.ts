import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * Every transaction signed for a refund (or a return of funds) is kept, not only the one on record: a transaction
 * re-signed with a higher compute-unit price has a signature of its own, and any of them may be the one that lands,
 * so each is looked up on chain until the refund ends. An attempt is kept before it is sent; the refund's own row
 * points to the newest (or, once ended, to the one that landed). Attempts are never changed nor removed while their
 * refund lives. `compute_unit_price` is what the attempt offers, in micro-lamports per compute unit;
 * `blockhash` is the one it was signed with (docs/adr/0034-priority-fees-and-resends.md): all attempts share it until
 * it expires.
 */
export class RefundAttempts1764402700000 implements MigrationInterface {
  name = 'RefundAttempts1764402700000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      ALTER TABLE ${s}.crypto_refunds
        ADD COLUMN blockhash text,
        ADD COLUMN compute_unit_price bigint CHECK (compute_unit_price >= 0)`);
    await queryRunner.query(`
      CREATE TABLE ${s}.crypto_refund_attempts (
        signature text PRIMARY KEY,
        refund_id text NOT NULL REFERENCES ${s}.crypto_refunds (refund_id),
        blockhash text,
        compute_unit_price bigint NOT NULL DEFAULT 0 CHECK (compute_unit_price >= 0),
        signed_transaction text NOT NULL,
        last_valid_block_height bigint NOT NULL,
        signed_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(
      `CREATE INDEX crypto_refund_attempts_by_refund ON ${s}.crypto_refund_attempts (refund_id)`,
    );
    // Transactions signed before this table existed are their refunds' only attempts.
    await queryRunner.query(`
      INSERT INTO ${s}.crypto_refund_attempts (signature, refund_id, signed_transaction, last_valid_block_height)
      SELECT signature, refund_id, signed_transaction, last_valid_block_height FROM ${s}.crypto_refunds
       WHERE signature IS NOT NULL`);
    await queryRunner.query(`
      CREATE FUNCTION ${s}.refuse_crypto_refund_attempt_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'crypto_refund_attempts: a signed attempt is kept as it was signed'
          USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER crypto_refund_attempts_kept BEFORE UPDATE OR DELETE ON ${s}.crypto_refund_attempts
      FOR EACH ROW EXECUTE FUNCTION ${s}.refuse_crypto_refund_attempt_change()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP TABLE ${s}.crypto_refund_attempts`);
    await queryRunner.query(`DROP FUNCTION ${s}.refuse_crypto_refund_attempt_change()`);
    await queryRunner.query(
      `ALTER TABLE ${s}.crypto_refunds DROP COLUMN blockhash, DROP COLUMN compute_unit_price`,
    );
  }
}
