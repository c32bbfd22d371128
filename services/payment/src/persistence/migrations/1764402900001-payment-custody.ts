import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * Who holds a payment's money: the platform's PSP account (every payment so far), or the business's own (`direct`, a
 * PIX charge opened at the business's own PSP account), whose money the ledger never books as the platform's.
 */
export class PaymentCustody1764402900001 implements MigrationInterface {
  name = 'PaymentCustody1764402900001';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(
      `ALTER TABLE ${s}.payments ADD COLUMN custody text NOT NULL DEFAULT 'platform'
         CHECK (custody IN ('platform', 'direct') AND (custody = 'platform' OR method = 'pix'))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE ${schemaOf(queryRunner)}.payments DROP COLUMN custody`);
  }
}
