import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

export class Payments1732300002000 implements MigrationInterface {
  name = 'Payments1732300002000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE TABLE ${s}.fee_rules (
        business_id text NOT NULL,
        method text NOT NULL CHECK (method IN ('pix', 'crypto')),
        percent_bps integer NOT NULL CHECK (percent_bps BETWEEN 0 AND 10000),
        fixed_centavos bigint NOT NULL CHECK (fixed_centavos >= 0),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (business_id, method)
      )`);
    await queryRunner.query(`
      CREATE TABLE ${s}.payments (
        id text PRIMARY KEY,
        business_id text NOT NULL,
        business_name text NOT NULL,
        method text NOT NULL CHECK (method IN ('pix', 'crypto')),
        status text NOT NULL
          CHECK (status IN ('pending', 'processing', 'paid', 'failed', 'expired', 'cancelled')),
        amount_centavos bigint NOT NULL CHECK (amount_centavos > 0),
        fee_centavos bigint NOT NULL CHECK (fee_centavos >= 0),
        token text,
        metadata text,
        transaction_id text,
        external_id text,
        failure_code text,
        failure_reason text,
        instructions jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        version integer NOT NULL DEFAULT 1
      )`);
    await queryRunner.query(`CREATE INDEX payments_business ON ${s}.payments (business_id, created_at)`);
    // The create command's message id -> the payment id it reserved, so a retried create reuses the id (and the
    // rail's charge) instead of opening a second one. Invisible to readers until the payment row commits.
    await queryRunner.query(`
      CREATE TABLE ${s}.payment_create_requests (
        message_id text PRIMARY KEY,
        payment_id text NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE ${s}.received_funds (
        id bigserial PRIMARY KEY,
        payment_id text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('late', 'excess', 'partial', 'unmatched')),
        rail text NOT NULL CHECK (rail IN ('pix', 'crypto')),
        rail_reference text NOT NULL,
        amount_centavos bigint,
        amount_base_units text,
        recorded_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (payment_id, kind, rail_reference)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    for (const table of ['received_funds', 'payment_create_requests', 'payments', 'fee_rules'])
      await queryRunner.query(`DROP TABLE ${s}.${table}`);
  }
}
