import type { MigrationInterface, QueryRunner } from 'typeorm';
import { guardFinalRows, schemaOf } from '@gateway/persistence';

/**
 * The MED devoluções (API Pix `natureza` MED_FRAUDE / MED_OPERACIONAL) the PSP listed on a paid charge's Pix: the
 * gateway did not ask for them, the payer's bank did (docs/adr/0033-med-disputes.md). One row per devolução; its status
 * moves once, from EM_PROCESSAMENTO to DEVOLVIDO or NAO_REALIZADO, then is frozen. An open one is re-read at the PSP
 * when its callback is overdue (`claimed_until`, as the refunds' poll does).
 */
export class MedDevolucoes1764402600002 implements MigrationInterface {
  name = 'MedDevolucoes1764402600002';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE TABLE ${s}.med_devolucoes (
        id bigserial PRIMARY KEY,
        end_to_end_id text NOT NULL CHECK (end_to_end_id ~ '^[a-zA-Z0-9]{32}$'),
        devolucao_id text NOT NULL CHECK (devolucao_id ~ '^[a-zA-Z0-9]{1,35}$'),
        payment_id text NOT NULL,
        amount_centavos bigint NOT NULL CHECK (amount_centavos > 0),
        natureza text NOT NULL CHECK (natureza IN ('MED_FRAUDE', 'MED_OPERACIONAL')),
        status text NOT NULL CHECK (status IN ('EM_PROCESSAMENTO', 'DEVOLVIDO', 'NAO_REALIZADO')),
        motivo text,
        claimed_until timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (end_to_end_id, devolucao_id)
      )`);
    await queryRunner.query(
      `CREATE INDEX med_devolucoes_open ON ${s}.med_devolucoes (updated_at) WHERE status = 'EM_PROCESSAMENTO'`,
    );
    await queryRunner.query(`CREATE INDEX med_devolucoes_payment ON ${s}.med_devolucoes (payment_id)`);
    await guardFinalRows(queryRunner, {
      table: 'med_devolucoes',
      finalStatuses: ['DEVOLVIDO', 'NAO_REALIZADO'],
      changeableColumns: [],
    });
    // What the PSP claims, and of which Pix and payment, is fixed when the MED appears.
    await queryRunner.query(`
      CREATE FUNCTION ${s}.refuse_med_devolucao_terms_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF (NEW.end_to_end_id, NEW.devolucao_id, NEW.payment_id, NEW.amount_centavos, NEW.natureza)
           IS DISTINCT FROM (OLD.end_to_end_id, OLD.devolucao_id, OLD.payment_id, OLD.amount_centavos, OLD.natureza)
        THEN
          RAISE EXCEPTION 'med_devolucoes: what a MED claims, and of which Pix, cannot change'
            USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
        END IF;
        RETURN NEW;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER med_devolucoes_terms_fixed BEFORE UPDATE ON ${s}.med_devolucoes
      FOR EACH ROW EXECUTE FUNCTION ${s}.refuse_med_devolucao_terms_change()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP TABLE ${s}.med_devolucoes`);
    await queryRunner.query(`DROP FUNCTION ${s}.refuse_med_devolucao_terms_change()`);
  }
}
