import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * A cob may name its debtor (API Pix `devedor`): a person by CPF or a company by CNPJ, never both, always with the
 * name. The debtor is who the charge is addressed to, not necessarily who pays it.
 */
export class PspCobDevedor1764402800200 implements MigrationInterface {
  name = 'PspCobDevedor1764402800200';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      ALTER TABLE ${s}.cobs
        ADD COLUMN devedor_cpf text CHECK (devedor_cpf ~ '^[0-9]{11}$'),
        ADD COLUMN devedor_cnpj text CHECK (devedor_cnpj ~ '^[0-9A-Z]{14}$'),
        ADD COLUMN devedor_nome text CHECK (char_length(devedor_nome) BETWEEN 1 AND 200),
        ADD CONSTRAINT cobs_devedor_one_document CHECK (devedor_cpf IS NULL OR devedor_cnpj IS NULL),
        ADD CONSTRAINT cobs_devedor_named CHECK (
          (devedor_nome IS NULL) = (devedor_cpf IS NULL AND devedor_cnpj IS NULL))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(
      `ALTER TABLE ${s}.cobs DROP COLUMN devedor_cpf, DROP COLUMN devedor_cnpj, DROP COLUMN devedor_nome`,
    );
  }
}
