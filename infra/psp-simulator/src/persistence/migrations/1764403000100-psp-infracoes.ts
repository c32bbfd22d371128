import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * Efí's MED infractions (`GET /v2/gn/infracoes`, `POST /v2/gn/infracoes/:idInfracao/defesa`): one per MED the sandbox
 * raises in the Efí mode, ABERTA until the receiver defends it (EM_DEFESA, with its `analise` and `justificativa`) or
 * the MED ends (ACEITA: the money went back; REJEITADA: found for the receiver).
 */
export class PspInfracoes1764403000100 implements MigrationInterface {
  name = 'PspInfracoes1764403000100';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE TABLE ${s}.infracoes (
        id_infracao text PRIMARY KEY,
        chave text NOT NULL,
        end_to_end_id text NOT NULL,
        devolucao_id text NOT NULL,
        valor_centavos bigint NOT NULL CHECK (valor_centavos > 0),
        status text NOT NULL CHECK (status IN ('ABERTA', 'EM_DEFESA', 'ACEITA', 'REJEITADA')),
        analise text,
        justificativa text,
        criado_em timestamptz NOT NULL,
        defesa_em timestamptz,
        finalizado_em timestamptz,
        UNIQUE (end_to_end_id, devolucao_id),
        CHECK ((status = 'EM_DEFESA') <= (justificativa IS NOT NULL))
      )`);
    await queryRunner.query(`CREATE INDEX infracoes_period ON ${s}.infracoes (chave, criado_em)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP TABLE ${s}.infracoes`);
  }
}
