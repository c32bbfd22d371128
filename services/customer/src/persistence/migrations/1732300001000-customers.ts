import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

export class Customers1732300001000 implements MigrationInterface {
  name = 'Customers1732300001000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE TABLE ${s}.customers (
        id text PRIMARY KEY,
        business_id text NOT NULL,
        email text,
        phone_number text,
        document_number text,
        ip text,
        metadata text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX customers_business ON ${s}.customers (business_id, created_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE ${schemaOf(queryRunner)}.customers`);
  }
}
