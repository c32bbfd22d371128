import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * Charges with a due date (API Pix `cobv`) beside the immediate ones, and the simulator's clock.
 *
 * A cobv lives in `cobs` with `tipo_cob = 'cobv'`: one txid space for both kinds (a txid names one charge of the
 * receiver, whatever its kind), one Pix per charge and one charge per location hold for both as they are. A cobv has a
 * due date and a number of days it stays payable after it instead of an expiry in seconds, always names its debtor
 * (CPF or CNPJ, and the name), and may carry fine, interest, reduction and discount rules (`valor_regras`, as API Pix
 * states them). A location is made for one kind of charge (`locations.tipo_cob`).
 *
 * `clock` keeps how far a test has moved the simulator's time forward, so a restart keeps the date it had reached.
 */
export class PspCobv1764403200430 implements MigrationInterface {
  name = 'PspCobv1764403200430';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      ALTER TABLE ${s}.locations
        ADD COLUMN tipo_cob text NOT NULL DEFAULT 'cob' CHECK (tipo_cob IN ('cob', 'cobv'))`);
    await queryRunner.query(`
      ALTER TABLE ${s}.cobs
        ADD COLUMN tipo_cob text NOT NULL DEFAULT 'cob' CHECK (tipo_cob IN ('cob', 'cobv')),
        ALTER COLUMN expiracao DROP NOT NULL,
        ADD COLUMN data_de_vencimento date,
        ADD COLUMN validade_apos_vencimento integer CHECK (validade_apos_vencimento >= 0),
        ADD COLUMN valor_regras jsonb,
        ADD COLUMN devedor_complemento jsonb,
        ADD COLUMN info_adicionais jsonb,
        ADD CONSTRAINT cobs_kind_calendar CHECK (
          CASE tipo_cob
            WHEN 'cob' THEN expiracao IS NOT NULL AND data_de_vencimento IS NULL
            ELSE expiracao IS NULL AND data_de_vencimento IS NOT NULL AND validade_apos_vencimento IS NOT NULL
              AND devedor_nome IS NOT NULL
          END)`);
    await queryRunner.query(`CREATE INDEX cobs_kind_criacao ON ${s}.cobs (tipo_cob, criacao)`);
    // Each revision of a cobv as it was made, so `GET /cobv/{txid}?revisao=n` answers it.
    await queryRunner.query(`
      CREATE TABLE ${s}.cob_revisoes (
        txid text NOT NULL REFERENCES ${s}.cobs (txid),
        revisao integer NOT NULL CHECK (revisao >= 0),
        document jsonb NOT NULL,
        PRIMARY KEY (txid, revisao)
      )`);
    await queryRunner.query(`
      CREATE TABLE ${s}.clock (
        id boolean PRIMARY KEY DEFAULT true CHECK (id),
        offset_ms bigint NOT NULL CHECK (offset_ms >= 0)
      )`);
    await queryRunner.query(`INSERT INTO ${s}.clock (offset_ms) VALUES (0)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP TABLE ${s}.clock`);
    await queryRunner.query(`DROP TABLE ${s}.cob_revisoes`);
    await queryRunner.query(`DROP INDEX ${s}.cobs_kind_criacao`);
    // The cobvs stay, as rows of a kind the code before this migration does not read (`expiracao` stays nullable).
    await queryRunner.query(`
      ALTER TABLE ${s}.cobs DROP CONSTRAINT cobs_kind_calendar, DROP COLUMN tipo_cob, DROP COLUMN data_de_vencimento,
        DROP COLUMN validade_apos_vencimento, DROP COLUMN valor_regras, DROP COLUMN devedor_complemento,
        DROP COLUMN info_adicionais`);
    await queryRunner.query(`ALTER TABLE ${s}.locations DROP COLUMN tipo_cob`);
  }
}
