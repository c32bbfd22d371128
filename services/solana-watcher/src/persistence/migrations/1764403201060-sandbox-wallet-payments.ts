import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * Sandbox only: the transaction the test wallet signed for a `paid` simulation, kept (by the command's message id)
 * before it is sent. A delivery of the same command again, after an answer lost to a database or broker fault, reads
 * what became of that transaction on chain instead of paying a second time, and knows the payment its own first
 * delivery made final. A transaction that can no longer land is replaced by a new one.
 */
export class SandboxWalletPayments1764403201060 implements MigrationInterface {
  name = 'SandboxWalletPayments1764403201060';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE TABLE ${s}.sandbox_wallet_payments (
        message_id text PRIMARY KEY,
        signature text NOT NULL,
        signed_transaction text NOT NULL,
        last_valid_block_height bigint NOT NULL CHECK (last_valid_block_height >= 0),
        signed_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE ${schemaOf(queryRunner)}.sandbox_wallet_payments`);
  }
}
