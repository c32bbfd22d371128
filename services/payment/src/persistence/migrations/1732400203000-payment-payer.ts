import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * Who paid a payment, as its rail reported it: a PIX payer's name and masked document, or the Solana owner of the
 * paying token account. The database keeps it to a paid payment of the right rail and refuses a document that is not
 * masked (CPF `***.456.789-**`, CNPJ `**.345.678/0001-**`): a whole CPF is never stored here. Null for every earlier
 * payment. A payer is written with the move to `paid`, so the final-row guard freezes it with the rest.
 */
export class PaymentPayer1732400203000 implements MigrationInterface {
  name = 'PaymentPayer1732400203000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      ALTER TABLE ${s}.payments
        ADD COLUMN payer_name text,
        ADD COLUMN payer_document_masked text,
        ADD COLUMN payer_address text,
        ADD CONSTRAINT payments_payer_once_paid CHECK (
          status = 'paid' OR (payer_name IS NULL AND payer_document_masked IS NULL AND payer_address IS NULL)),
        ADD CONSTRAINT payments_payer_of_its_rail CHECK (
          (method = 'pix' AND payer_address IS NULL)
          OR (method = 'crypto' AND payer_name IS NULL AND payer_document_masked IS NULL)),
        ADD CONSTRAINT payments_payer_name_bounded CHECK (char_length(payer_name) BETWEEN 1 AND 200),
        ADD CONSTRAINT payments_payer_document_masked CHECK (
          payer_document_masked ~ '^\\*\\*\\*\\.[0-9]{3}\\.[0-9]{3}-\\*\\*$'
          OR payer_document_masked ~ '^\\*\\*\\.[0-9A-Z]{3}\\.[0-9A-Z]{3}/[0-9A-Z]{4}-\\*\\*$'),
        ADD CONSTRAINT payments_payer_address_base58 CHECK (payer_address ~ '^[1-9A-HJ-NP-Za-km-z]{32,44}$')`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE ${schemaOf(queryRunner)}.payments
        DROP COLUMN payer_name, DROP COLUMN payer_document_masked, DROP COLUMN payer_address`);
  }
}
