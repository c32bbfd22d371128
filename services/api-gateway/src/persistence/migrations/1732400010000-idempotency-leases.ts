import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * An in-progress claim is a lease its request renews while it runs: one whose lease ran out belongs to a gateway
 * that died, and a retry takes it over within seconds (it used to wait 60 s from the claim). Claims in progress
 * during the migration keep those 60 s, since their gateways do not renew. Only a claim in progress has a lease.
 */
export class IdempotencyLeases1732400010000 implements MigrationInterface {
  name = 'IdempotencyLeases1732400010000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`ALTER TABLE ${s}.idempotency_keys ADD COLUMN lease_expires_at timestamptz`);
    await queryRunner.query(
      `UPDATE ${s}.idempotency_keys SET lease_expires_at = created_at + interval '60 seconds'
        WHERE state = 'in_progress'`,
    );
    await queryRunner.query(
      `ALTER TABLE ${s}.idempotency_keys ADD CONSTRAINT idempotency_keys_lease_check
         CHECK ((state = 'in_progress') = (lease_expires_at IS NOT NULL))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`ALTER TABLE ${s}.idempotency_keys DROP CONSTRAINT idempotency_keys_lease_check`);
    await queryRunner.query(`ALTER TABLE ${s}.idempotency_keys DROP COLUMN lease_expires_at`);
  }
}
