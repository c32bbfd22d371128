import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

export class Charges1732300003000 implements MigrationInterface {
  name = 'Charges1732300003000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE TABLE ${s}.charges (
        txid text PRIMARY KEY,
        payment_id text NOT NULL UNIQUE,
        amount_centavos bigint NOT NULL CHECK (amount_centavos > 0),
        status text NOT NULL CHECK (status IN ('active', 'paid', 'expired', 'failed')),
        revisao integer NOT NULL,
        location text NOT NULL,
        merchant_name text NOT NULL,
        copia_e_cola text NOT NULL,
        qr_code text NOT NULL,
        expires_at timestamptz NOT NULL,
        paid_end_to_end_id text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(
      `CREATE INDEX charges_active_expiry ON ${s}.charges (expires_at) WHERE status = 'active'`,
    );
    // Every callback item and every PIX found by the sweeper, whatever became of it. Only PIX confirmed at the PSP
    // claim their endToEndId, so a forged callback cannot squat the id of a real payment.
    await queryRunner.query(`
      CREATE TABLE ${s}.callbacks_received (
        id bigserial PRIMARY KEY,
        end_to_end_id text NOT NULL,
        txid text NOT NULL,
        amount_centavos bigint NOT NULL,
        outcome text NOT NULL
          CHECK (outcome IN ('applied', 'wrong_amount', 'late', 'duplicate', 'unknown_txid', 'unconfirmed')),
        source text NOT NULL CHECK (source IN ('callback', 'sweep')),
        received_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE UNIQUE INDEX callbacks_received_confirmed ON ${s}.callbacks_received (end_to_end_id)
      WHERE outcome IN ('applied', 'wrong_amount', 'late')`);
    await queryRunner.query(`
      CREATE TABLE ${s}.late_payments (
        end_to_end_id text PRIMARY KEY,
        txid text NOT NULL,
        payment_id text NOT NULL,
        amount_centavos bigint NOT NULL,
        charge_status text NOT NULL,
        paid_at timestamptz NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    for (const table of ['late_payments', 'callbacks_received', 'charges'])
      await queryRunner.query(`DROP TABLE ${s}.${table}`);
  }
}
