import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/** A customer may have a name: with a valid CPF/CNPJ it names the debtor of the customer's PIX charges. */
export class CustomerName1764402800000 implements MigrationInterface {
  name = 'CustomerName1764402800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(
      `ALTER TABLE ${s}.customers ADD COLUMN name text CHECK (name IS NULL OR (name <> '' AND char_length(name) <= 200))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`ALTER TABLE ${s}.customers DROP COLUMN name`);
  }
}
