import type { MigrationInterface, QueryRunner } from 'typeorm';
import { guardFinalRows, schemaOf } from '@gateway/persistence';

/**
 * Pix Automático's recurrences (API Pix `rec`), the requests that ask the payer to authorize one (`solicrec`) and the
 * URL the receiver is told of their changes at (`webhookrec`).
 *
 * The books hold the rules a bank's cannot break: a recurrence moves only as API Pix states (CRIADA to APROVADA,
 * REJEITADA, EXPIRADA or CANCELADA; APROVADA to CANCELADA or EXPIRADA; the last three final), a request only forward
 * (CRIADA, ENVIADA, RECEBIDA, then ACEITA, REJEITADA, EXPIRADA or CANCELADA, final), a recurrence has at most one
 * request in flight, a fixed amount and a receiver's floor are never both set, and a final row never changes.
 */
export class PspRec1764403200500 implements MigrationInterface {
  name = 'PspRec1764403200500';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE TABLE ${s}.recs (
        id_rec text PRIMARY KEY CHECK (id_rec ~ '^R[RN][0-9A-Z]{8}[0-9]{8}[a-zA-Z0-9]{11}$'),
        pix_key text NOT NULL REFERENCES ${s}.accounts (pix_key),
        status text NOT NULL CHECK (status IN ('CRIADA', 'APROVADA', 'REJEITADA', 'EXPIRADA', 'CANCELADA')),
        criacao timestamptz NOT NULL,
        politica_retentativa text NOT NULL CHECK (politica_retentativa IN ('NAO_PERMITE', 'PERMITE_3R_7D')),
        periodicidade text NOT NULL CHECK (periodicidade IN ('SEMANAL', 'MENSAL', 'TRIMESTRAL', 'SEMESTRAL', 'ANUAL')),
        data_inicial date NOT NULL,
        data_final date CHECK (data_final >= data_inicial),
        valor_rec_centavos bigint CHECK (valor_rec_centavos > 0),
        valor_minimo_centavos bigint CHECK (valor_minimo_centavos > 0),
        contrato text NOT NULL CHECK (char_length(contrato) <= 35),
        objeto text CHECK (char_length(objeto) <= 35),
        devedor_cpf text CHECK (devedor_cpf ~ '^[0-9]{11}$'),
        devedor_cnpj text CHECK (devedor_cnpj ~ '^[0-9A-Z]{14}$'),
        devedor_nome text NOT NULL CHECK (char_length(devedor_nome) <= 140),
        convenio text CHECK (char_length(convenio) <= 60),
        tipo_jornada text NOT NULL
          CHECK (tipo_jornada IN ('JORNADA_1', 'JORNADA_2', 'JORNADA_3', 'JORNADA_4', 'AGUARDANDO_DEFINICAO')),
        txid_jornada text CHECK (txid_jornada ~ '^[a-zA-Z0-9]{26,35}$'),
        pagador jsonb,
        encerramento jsonb,
        atualizacao jsonb NOT NULL,
        CONSTRAINT recs_one_amount_kind CHECK (valor_rec_centavos IS NULL OR valor_minimo_centavos IS NULL),
        CONSTRAINT recs_one_debtor_id CHECK ((devedor_cpf IS NULL) <> (devedor_cnpj IS NULL)),
        CONSTRAINT recs_retry_in_id CHECK (substr(id_rec, 2, 1) = CASE politica_retentativa WHEN 'PERMITE_3R_7D' THEN 'R' ELSE 'N' END),
        CONSTRAINT recs_approved_has_payer CHECK (status <> 'APROVADA' OR pagador IS NOT NULL),
        CONSTRAINT recs_ended_explained CHECK ((status IN ('REJEITADA', 'CANCELADA')) = (encerramento IS NOT NULL))
      )`);
    await queryRunner.query(`CREATE INDEX recs_account_criacao ON ${s}.recs (pix_key, criacao)`);
    await queryRunner.query(`
      CREATE TABLE ${s}.solicrecs (
        id_solic_rec text PRIMARY KEY CHECK (id_solic_rec ~ '^SC[0-9A-Z]{8}[0-9]{8}[a-zA-Z0-9]{11}$'),
        id_rec text NOT NULL REFERENCES ${s}.recs (id_rec),
        status text NOT NULL
          CHECK (status IN ('CRIADA', 'ENVIADA', 'RECEBIDA', 'ACEITA', 'REJEITADA', 'EXPIRADA', 'CANCELADA')),
        criacao timestamptz NOT NULL,
        data_expiracao timestamptz NOT NULL,
        destinatario jsonb NOT NULL,
        atualizacao jsonb NOT NULL
      )`);
    // One request in flight per recurrence (API Pix: "Existe uma solicitação ativa referente ao mesmo idRec").
    await queryRunner.query(`
      CREATE UNIQUE INDEX solicrecs_one_in_flight ON ${s}.solicrecs (id_rec)
        WHERE status IN ('CRIADA', 'ENVIADA', 'RECEBIDA')`);
    await queryRunner.query(`
      CREATE INDEX solicrecs_expiring ON ${s}.solicrecs (data_expiracao) WHERE status IN ('CRIADA', 'ENVIADA', 'RECEBIDA')`);
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION ${s}.refuse_status_step() RETURNS trigger
      LANGUAGE plpgsql AS $$
      DECLARE
        -- TG_ARGV: 'FROM>TO' steps the table allows.
        step text := OLD.status || '>' || NEW.status;
      BEGIN
        IF OLD.status = NEW.status OR step = ANY (TG_ARGV) THEN
          RETURN NEW;
        END IF;
        RAISE EXCEPTION '%: status % cannot become %', TG_TABLE_NAME, OLD.status, NEW.status
          USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER recs_status_steps BEFORE UPDATE OF status ON ${s}.recs
      FOR EACH ROW EXECUTE FUNCTION ${s}.refuse_status_step(
        'CRIADA>APROVADA', 'CRIADA>REJEITADA', 'CRIADA>EXPIRADA', 'CRIADA>CANCELADA',
        'APROVADA>CANCELADA', 'APROVADA>EXPIRADA')`);
    await queryRunner.query(`
      CREATE TRIGGER solicrecs_status_steps BEFORE UPDATE OF status ON ${s}.solicrecs
      FOR EACH ROW EXECUTE FUNCTION ${s}.refuse_status_step(
        'CRIADA>ENVIADA', 'CRIADA>CANCELADA', 'CRIADA>EXPIRADA',
        'ENVIADA>RECEBIDA', 'ENVIADA>CANCELADA', 'ENVIADA>EXPIRADA',
        'RECEBIDA>ACEITA', 'RECEBIDA>REJEITADA', 'RECEBIDA>CANCELADA', 'RECEBIDA>EXPIRADA')`);
    await guardFinalRows(queryRunner, {
      table: 'recs',
      finalStatuses: ['REJEITADA', 'EXPIRADA', 'CANCELADA'],
      changeableColumns: [],
    });
    await guardFinalRows(queryRunner, {
      table: 'solicrecs',
      finalStatuses: ['ACEITA', 'REJEITADA', 'EXPIRADA', 'CANCELADA'],
      changeableColumns: [],
    });
    await queryRunner.query(`
      CREATE TABLE ${s}.webhooks_rec (
        pix_key text PRIMARY KEY REFERENCES ${s}.accounts (pix_key),
        webhook_url text NOT NULL,
        criacao timestamptz NOT NULL
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    for (const table of ['webhooks_rec', 'solicrecs', 'recs'])
      await queryRunner.query(`DROP TABLE ${s}.${table}`);
    await queryRunner.query(`DROP FUNCTION ${s}.refuse_status_step()`);
  }
}
