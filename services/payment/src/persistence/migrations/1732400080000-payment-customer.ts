import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/** A payment may name one of its business's customers (checked by the gateway): null for every earlier payment. */
export class PaymentCustomer1732400080000 implements MigrationInterface {
  name = 'PaymentCustomer1732400080000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE ${schemaOf(queryRunner)}.payments ADD COLUMN customer_id text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE ${schemaOf(queryRunner)}.payments DROP COLUMN customer_id`);
  }
}
