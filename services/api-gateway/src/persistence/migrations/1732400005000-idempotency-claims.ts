import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * Each claim of an idempotency key gets its own id, from which (with the key and the request hash) the downstream
 * command id derives: a key claimed afresh after its record expired is a new command, never the old one. Answers are
 * stored sealed from now on. Earlier records are dropped: their answers are in clear (a webhook's signing secret
 * among them) and their command ids derive from the key alone; they lived 24 h at most.
 */
export class IdempotencyClaims1732400005000 implements MigrationInterface {
  name = 'IdempotencyClaims1732400005000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DELETE FROM ${s}.idempotency_keys`);
    await queryRunner.query(
      `ALTER TABLE ${s}.idempotency_keys ADD COLUMN claim_id uuid NOT NULL DEFAULT gen_random_uuid()`,
    );
    await queryRunner.query(
      `ALTER TABLE ${s}.idempotency_keys RENAME COLUMN response_body TO response_sealed`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DELETE FROM ${s}.idempotency_keys`);
    await queryRunner.query(
      `ALTER TABLE ${s}.idempotency_keys RENAME COLUMN response_sealed TO response_body`,
    );
    await queryRunner.query(`ALTER TABLE ${s}.idempotency_keys DROP COLUMN claim_id`);
  }
}
