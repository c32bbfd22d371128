import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * A devolução may be a MED one (API Pix `natureza` MED_FRAUDE / MED_OPERACIONAL): the payer's bank claims a Pix comum
 * back under the Mecanismo Especial de Devolução. The sandbox raises them; they settle when the sandbox ends the MED.
 */
export class PspMed1764402600001 implements MigrationInterface {
  name = 'PspMed1764402600001';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`ALTER TABLE ${s}.devolucoes DROP CONSTRAINT devolucoes_natureza_check`);
    await queryRunner.query(`
      ALTER TABLE ${s}.devolucoes ADD CONSTRAINT devolucoes_natureza_check
        CHECK (natureza IN ('ORIGINAL', 'MED_FRAUDE', 'MED_OPERACIONAL'))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`ALTER TABLE ${s}.devolucoes DROP CONSTRAINT devolucoes_natureza_check`);
    await queryRunner.query(
      `ALTER TABLE ${s}.devolucoes ADD CONSTRAINT devolucoes_natureza_check CHECK (natureza = 'ORIGINAL')`,
    );
  }
}
