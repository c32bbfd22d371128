import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * A key whose first answer was a 5xx stays, as `retryable`, with its request hash: a retry with the same body runs
 * again, one with a different body is still IDEMPOTENCY_CONFLICT (the downstream command id is the key's).
 */
export class RetryableIdempotencyKeys1732300008000 implements MigrationInterface {
  name = 'RetryableIdempotencyKeys1732300008000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`ALTER TABLE ${s}.idempotency_keys DROP CONSTRAINT idempotency_keys_state_check`);
    await queryRunner.query(
      `ALTER TABLE ${s}.idempotency_keys ADD CONSTRAINT idempotency_keys_state_check
         CHECK (state IN ('in_progress', 'done', 'retryable'))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DELETE FROM ${s}.idempotency_keys WHERE state = 'retryable'`);
    await queryRunner.query(`ALTER TABLE ${s}.idempotency_keys DROP CONSTRAINT idempotency_keys_state_check`);
    await queryRunner.query(
      `ALTER TABLE ${s}.idempotency_keys ADD CONSTRAINT idempotency_keys_state_check CHECK (state IN ('in_progress', 'done'))`,
    );
  }
}
