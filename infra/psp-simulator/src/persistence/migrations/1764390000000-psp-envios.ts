import type { MigrationInterface, QueryRunner } from 'typeorm';
import { guardFinalRows, schemaOf } from '@gateway/persistence';

/**
 * The Pix the simulated account sends (Efí's "envio de Pix", `PUT /v3/gn/pix/:idEnvio`): one row per `idEnvio`, so a
 * repeated id can never send twice, with the outcome decided when it was asked for (so a restart settles it the same
 * way) and the reason of a refusal. A settled envio never changes, and amounts are positive centavos. A devolução
 * draws on the same balance: one it cannot cover is refused when it settles, planned when it is asked for.
 */
export class PspEnvios1764390000000 implements MigrationInterface {
  name = 'PspEnvios1764390000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE TABLE ${s}.envios (
        id_envio text PRIMARY KEY CHECK (id_envio ~ '^[a-zA-Z0-9]{1,35}$'),
        end_to_end_id text NOT NULL UNIQUE CHECK (end_to_end_id ~ '^E[a-zA-Z0-9]{31}$'),
        pagador_chave text NOT NULL REFERENCES ${s}.accounts (pix_key),
        valor_centavos bigint NOT NULL CHECK (valor_centavos > 0),
        info_pagador text CHECK (char_length(info_pagador) <= 140),
        favorecido jsonb NOT NULL,
        status text NOT NULL CHECK (status IN ('EM_PROCESSAMENTO', 'REALIZADO', 'NAO_REALIZADO')),
        planned_failure jsonb,
        erro jsonb,
        solicitacao timestamptz NOT NULL,
        liquidacao timestamptz,
        settles_at timestamptz NOT NULL,
        CONSTRAINT envios_settled_when_done CHECK ((status = 'REALIZADO') = (liquidacao IS NOT NULL)),
        CONSTRAINT envios_refusal_explained CHECK ((status = 'NAO_REALIZADO') = (erro IS NOT NULL))
      )`);
    await queryRunner.query(`CREATE INDEX envios_by_payer ON ${s}.envios (pagador_chave, status)`);
    await queryRunner.query(`
      CREATE INDEX envios_in_processing ON ${s}.envios (settles_at) WHERE status = 'EM_PROCESSAMENTO'`);
    // A devolução the balance could not cover when asked for is refused when it settles (Efí's "Saldo insuficiente").
    await queryRunner.query(`ALTER TABLE ${s}.devolucoes ADD COLUMN planned_refusal text`);
    await guardFinalRows(queryRunner, {
      table: 'envios',
      finalStatuses: ['REALIZADO', 'NAO_REALIZADO'],
      changeableColumns: [],
    });
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE ${schemaOf(queryRunner)}.devolucoes DROP COLUMN planned_refusal`);
    await queryRunner.query(`DROP TABLE ${schemaOf(queryRunner)}.envios`);
  }
}
