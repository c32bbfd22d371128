import type { MigrationInterface, QueryRunner } from 'typeorm';
import { guardFinalRows, schemaOf } from '@gateway/persistence';

/**
 * The simulated PSP's books, kept across restarts as a bank keeps them: the receiving accounts (one per Pix key) and
 * the webhook each registered, the access tokens it handed out, payload locations, immediate charges (cobs), the Pix
 * received into them and their devoluções. The database holds the rules a bank's ledger cannot break whatever the
 * code does: a cob is paid at most once (one Pix per txid), a location serves at most one cob, a concluded or removed
 * cob and a settled devolução never change, and amounts are positive centavos.
 */
export class PspBooks1764380000000 implements MigrationInterface {
  name = 'PspBooks1764380000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE TABLE ${s}.accounts (
        pix_key text PRIMARY KEY,
        client_id text NOT NULL,
        cnpj text NOT NULL CHECK (cnpj ~ '^[0-9]{14}$'),
        opened_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE ${s}.webhooks (
        pix_key text PRIMARY KEY REFERENCES ${s}.accounts (pix_key),
        webhook_url text NOT NULL,
        criacao timestamptz NOT NULL
      )`);
    // Only a token's hash: whoever reads the books cannot call the API with what they find.
    await queryRunner.query(`
      CREATE TABLE ${s}.access_tokens (
        token_sha256 text PRIMARY KEY,
        client_id text NOT NULL,
        scopes text[] NOT NULL,
        expires_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX access_tokens_expiry ON ${s}.access_tokens (expires_at)`);
    await queryRunner.query(`
      CREATE TABLE ${s}.locations (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        access_token text NOT NULL UNIQUE,
        location text NOT NULL,
        criacao timestamptz NOT NULL
      )`);
    await queryRunner.query(`
      CREATE TABLE ${s}.cobs (
        txid text PRIMARY KEY CHECK (txid ~ '^[a-zA-Z0-9]{26,35}$'),
        revisao integer NOT NULL CHECK (revisao >= 0),
        status text NOT NULL CHECK (status IN ('ATIVA', 'CONCLUIDA', 'REMOVIDA_PELO_USUARIO_RECEBEDOR', 'REMOVIDA_PELO_PSP')),
        criacao timestamptz NOT NULL,
        expiracao integer NOT NULL CHECK (expiracao > 0),
        loc_id bigint NOT NULL UNIQUE REFERENCES ${s}.locations (id),
        valor_original_centavos bigint NOT NULL CHECK (valor_original_centavos > 0),
        modalidade_alteracao smallint NOT NULL CHECK (modalidade_alteracao IN (0, 1)),
        chave text NOT NULL REFERENCES ${s}.accounts (pix_key),
        solicitacao_pagador text CHECK (char_length(solicitacao_pagador) <= 140)
      )`);
    await guardFinalRows(queryRunner, {
      table: 'cobs',
      finalStatuses: ['CONCLUIDA', 'REMOVIDA_PELO_USUARIO_RECEBEDOR', 'REMOVIDA_PELO_PSP'],
      changeableColumns: [],
    });
    // A received Pix is immutable: its columns are what the rules need, `document` the API Pix \`Pix\` as received
    // (json, not jsonb: kept as the payer's bank sent it, a NUL escape in a payer's name included, which jsonb refuses).
    await queryRunner.query(`
      CREATE TABLE ${s}.pix (
        end_to_end_id text PRIMARY KEY CHECK (end_to_end_id ~ '^E[a-zA-Z0-9]{31}$'),
        txid text NOT NULL UNIQUE REFERENCES ${s}.cobs (txid),
        valor_centavos bigint NOT NULL CHECK (valor_centavos > 0),
        horario timestamptz NOT NULL,
        document json NOT NULL
      )`);
    await queryRunner.query(`
      CREATE TABLE ${s}.devolucoes (
        end_to_end_id text NOT NULL REFERENCES ${s}.pix (end_to_end_id),
        id text NOT NULL CHECK (id ~ '^[a-zA-Z0-9]{1,35}$'),
        rtr_id text NOT NULL UNIQUE CHECK (rtr_id ~ '^D[a-zA-Z0-9]{31}$'),
        valor_centavos bigint NOT NULL CHECK (valor_centavos > 0),
        natureza text NOT NULL CHECK (natureza = 'ORIGINAL'),
        descricao text CHECK (char_length(descricao) <= 140),
        status text NOT NULL CHECK (status IN ('EM_PROCESSAMENTO', 'DEVOLVIDO', 'NAO_REALIZADO')),
        motivo text,
        solicitacao timestamptz NOT NULL,
        liquidacao timestamptz,
        settles_at timestamptz NOT NULL,
        PRIMARY KEY (end_to_end_id, id),
        CONSTRAINT devolucoes_settled_when_returned CHECK ((status = 'DEVOLVIDO') = (liquidacao IS NOT NULL)),
        CONSTRAINT devolucoes_refusal_explained CHECK ((status = 'NAO_REALIZADO') = (motivo IS NOT NULL))
      )`);
    await queryRunner.query(`
      CREATE INDEX devolucoes_in_processing ON ${s}.devolucoes (settles_at) WHERE status = 'EM_PROCESSAMENTO'`);
    await guardFinalRows(queryRunner, {
      table: 'devolucoes',
      finalStatuses: ['DEVOLVIDO', 'NAO_REALIZADO'],
      changeableColumns: [],
    });
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    for (const table of ['devolucoes', 'pix', 'cobs', 'locations', 'access_tokens', 'webhooks', 'accounts'])
      await queryRunner.query(`DROP TABLE ${s}.${table}`);
  }
}
