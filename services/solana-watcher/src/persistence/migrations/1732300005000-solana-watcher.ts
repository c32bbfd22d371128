import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

export class SolanaWatcher1732300005000 implements MigrationInterface {
  name = 'SolanaWatcher1732300005000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE TABLE ${s}.payment_requests (
        reference text PRIMARY KEY,
        payment_id text NOT NULL,
        token text NOT NULL CHECK (token IN ('usdc', 'usdt', 'eurc')),
        mint text NOT NULL,
        amount_base_units numeric(40, 0) NOT NULL CHECK (amount_base_units > 0),
        decimals integer NOT NULL,
        quote_rate text NOT NULL,
        quote_source text NOT NULL,
        quote_at timestamptz NOT NULL,
        payment_link text NOT NULL,
        expires_at timestamptz NOT NULL,
        status text NOT NULL
          CHECK (status IN ('open', 'settled', 'expired', 'underpaid', 'failed', 'superseded')),
        received_base_units numeric(40, 0) NOT NULL DEFAULT 0,
        settled_signature text,
        correlation_id text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    // At most one open request per payment: an amount change supersedes the previous one.
    await queryRunner.query(
      `CREATE UNIQUE INDEX payment_requests_one_open ON ${s}.payment_requests (payment_id) WHERE status = 'open'`,
    );
    await queryRunner.query(
      `CREATE INDEX payment_requests_by_payment ON ${s}.payment_requests (payment_id, created_at)`,
    );
    await queryRunner.query(
      `CREATE INDEX payment_requests_due ON ${s}.payment_requests (expires_at) WHERE status = 'open'`,
    );
    await queryRunner.query(`
      CREATE TABLE ${s}.transfers (
        signature text NOT NULL,
        reference text NOT NULL REFERENCES ${s}.payment_requests (reference),
        payment_id text NOT NULL,
        amount numeric(40, 0) NOT NULL,
        mint text NOT NULL,
        slot bigint NOT NULL,
        block_time timestamptz,
        applied_to text NOT NULL CHECK (applied_to IN ('payment', 'late', 'wrong_mint', 'superseded')),
        recorded_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (signature, reference)
      )`);
    await queryRunner.query(`CREATE INDEX transfers_by_payment ON ${s}.transfers (payment_id)`);
    await queryRunner.query(`
      CREATE TABLE ${s}.scan_cursors (
        address text PRIMARY KEY,
        last_signature text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP TABLE ${s}.scan_cursors`);
    await queryRunner.query(`DROP TABLE ${s}.transfers`);
    await queryRunner.query(`DROP TABLE ${s}.payment_requests`);
  }
}
