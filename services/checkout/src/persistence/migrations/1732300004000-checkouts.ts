import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

export class Checkouts1732300004000 implements MigrationInterface {
  // Released as 1732300003000, the timestamp of the PIX adapter's first migration too: one name per timestamp now.
  static readonly formerName = 'Checkouts1732300003000';
  name = 'Checkouts1732300004000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE TABLE ${s}.products (
        id text PRIMARY KEY,
        business_id text NOT NULL,
        business_name text,
        name text NOT NULL,
        description text,
        price_centavos bigint NOT NULL CHECK (price_centavos >= 100),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE ${s}.checkouts (
        id text PRIMARY KEY,
        business_id text NOT NULL,
        product_id text NOT NULL REFERENCES ${s}.products (id),
        slug text NOT NULL UNIQUE,
        title text,
        return_url text NOT NULL,
        cancel_url text NOT NULL,
        metadata text,
        status text NOT NULL CHECK (status IN ('active', 'inactive')),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX checkouts_business ON ${s}.checkouts (business_id, created_at)`);
    await queryRunner.query(`
      CREATE TABLE ${s}.sessions (
        id text PRIMARY KEY,
        checkout_id text NOT NULL REFERENCES ${s}.checkouts (id),
        payment_id text NOT NULL UNIQUE,
        status text NOT NULL CHECK (status IN ('initiated', 'paid', 'expired', 'failed')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX sessions_checkout ON ${s}.sessions (checkout_id, created_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP TABLE ${s}.sessions`);
    await queryRunner.query(`DROP TABLE ${s}.checkouts`);
    await queryRunner.query(`DROP TABLE ${s}.products`);
  }
}
