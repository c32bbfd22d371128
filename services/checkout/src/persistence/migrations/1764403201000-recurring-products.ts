import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * A product may be recurring (`interval`, the subscription intervals): its checkouts start a subscription, and their
 * sessions record it beside the payment of its first cycle (the payment their outcome follows). Every existing product
 * stays a one-off sale.
 */
export class RecurringProducts1764403201000 implements MigrationInterface {
  name = 'RecurringProducts1764403201000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      ALTER TABLE ${s}.products
        ADD COLUMN "interval" text
          CHECK ("interval" IN ('weekly', 'monthly', 'quarterly', 'semiannual', 'yearly'))`);
    await queryRunner.query(`ALTER TABLE ${s}.sessions ADD COLUMN subscription_id text UNIQUE`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`ALTER TABLE ${s}.sessions DROP COLUMN subscription_id`);
    await queryRunner.query(`ALTER TABLE ${s}.products DROP COLUMN "interval"`);
  }
}
