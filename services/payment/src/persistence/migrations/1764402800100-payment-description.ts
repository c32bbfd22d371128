import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * A payment may say what it is for: a PIX charge shows it to the payer (API Pix `solicitacaoPagador`, at most 140
 * characters), so the database holds it to that bound.
 */
export class PaymentDescription1764402800100 implements MigrationInterface {
  name = 'PaymentDescription1764402800100';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(
      `ALTER TABLE ${s}.payments ADD COLUMN description text
         CHECK (description IS NULL OR (description <> '' AND char_length(description) <= 140))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`ALTER TABLE ${s}.payments DROP COLUMN description`);
  }
}
