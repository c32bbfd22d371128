import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * The tariffs the PSP takes from the account (a bank charges for Pix received, for sends, a monthly fee): each one a
 * row, debited from the balance when charged, never changed. Nothing of the gateway's asks for them, so no event tells
 * the books: reconciliation finds the balance lower by their sum until an operator books them.
 */
export class PspTarifas1764401200100 implements MigrationInterface {
  name = 'PspTarifas1764401200100';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE TABLE ${s}.tarifas (
        id bigserial PRIMARY KEY,
        chave text NOT NULL REFERENCES ${s}.accounts (pix_key),
        valor_centavos bigint NOT NULL CHECK (valor_centavos > 0),
        descricao text CHECK (char_length(descricao) <= 140),
        cobrada_em timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX tarifas_by_account ON ${s}.tarifas (chave)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE ${schemaOf(queryRunner)}.tarifas`);
  }
}
