import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { type EntityManager } from 'typeorm';
import { BooksWithWebhook, UNIQUE_VIOLATION } from './books';
import { PspBooks1764380000000 } from './persistence/migrations/1764380000000-psp-books';
import { PspEnvios1764390000000 } from './persistence/migrations/1764390000000-psp-envios';
import { PspEnvioCallbacks1764400000000 } from './persistence/migrations/1764400000000-psp-envio-callbacks';
import { PspTarifas1764401200100 } from './persistence/migrations/1764401200100-psp-tarifas';
import { PspMed1764402600001 } from './persistence/migrations/1764402600001-psp-med';
import { PspCobDevedor1764402800200 } from './persistence/migrations/1764402800200-psp-cob-devedor';
import { PspInfracoes1764403000100 } from './persistence/migrations/1764403000100-psp-infracoes';
import { PspCobv1764403200430 } from './persistence/migrations/1764403200430-psp-cobv';
import { PspRec1764403200500 } from './persistence/migrations/1764403200500-psp-rec';
import { PspCobr1764403200600 } from './persistence/migrations/1764403200600-psp-cobr';
import { PspLocRec1764403200700 } from './persistence/migrations/1764403200700-psp-locrec';
import { PspRecClock1764403200900 } from './persistence/migrations/1764403200900-psp-rec-clock';
import { accountBalance } from './envio-store';

export type CobStatus = 'ATIVA' | 'CONCLUIDA' | 'REMOVIDA_PELO_USUARIO_RECEBEDOR' | 'REMOVIDA_PELO_PSP';
export type DevolucaoStatus = 'EM_PROCESSAMENTO' | 'DEVOLVIDO' | 'NAO_REALIZADO';

/** Where the simulated PSP keeps its books: its own schema, migrated as the services migrate theirs. */
export const pspDatabase = {
  schema: 'psp_simulator',
  entities: [],
  migrations: [
    PspBooks1764380000000,
    PspEnvios1764390000000,
    PspEnvioCallbacks1764400000000,
    PspTarifas1764401200100,
    PspMed1764402600001,
    PspCobDevedor1764402800200,
    PspInfracoes1764403000100,
    PspCobv1764403200430,
    PspRec1764403200500,
    PspCobr1764403200600,
    PspLocRec1764403200700,
    PspRecClock1764403200900,
  ],
};

/**
 * API Pix `natureza` of a devolução of a Pix comum: `ORIGINAL` when the receiver asks for it, `MED_FRAUDE` /
 * `MED_OPERACIONAL` when the payer's bank claims it back under the MED (Mecanismo Especial de Devolução).
 */
export type DevolucaoNatureza = 'ORIGINAL' | 'MED_FRAUDE' | 'MED_OPERACIONAL';

/** API Pix `Devolucao`: a refund of (part of) a received Pix, asked for by the receiver with its own `id`. */
export interface Devolucao {
  id: string;
  /** ReturnIdentification of the pacs.004 that carries it. */
  rtrId: string;
  valor: string;
  natureza: DevolucaoNatureza;
  descricao?: string;
  horario: { solicitacao: string; liquidacao?: string };
  status: DevolucaoStatus;
  motivo?: string;
}

export interface PixRecebido {
  endToEndId: string;
  txid: string;
  valor: string;
  chave: string;
  horario: string;
  /** API Pix `infoPagador`: free text the payer typed (at most 140 characters), when any. */
  infoPagador?: string;
  /**
   * Who paid (`{ cpf | cnpj, nome }`), as API Pix v2.0 listed it on the Pix and PSPs that still report it do; absent
   * when this PSP does not say.
   */
  pagador?: unknown;
  /**
   * API Pix `componentesValor`: what the amount is made of (`original`, and `multa`, `juros`, `abatimento`,
   * `desconto` when the Pix paid a cobv), each `{ valor }`; `valor` = original + multa + juros − abatimento − desconto.
   */
  componentesValor?: Record<string, { valor: string }>;
  devolucoes: Devolucao[];
}

/** What the payer's bank tells the receiving PSP of a Pix besides its amount. */
export type PayerReport = Pick<PixRecebido, 'infoPagador' | 'pagador'>;

/** An API Pix payload location (`loc`): the URL a dynamic BR Code carries, linked to at most one cob. */
export interface StoredLocation {
  id: number;
  /** The capability part of the URL (`{pixUrlAccessToken}`): who knows it may read the payload. */
  accessToken: string;
  /** Scheme-less, as BR Codes carry it: `host/qr/v2/<accessToken>`. */
  location: string;
  criacao: Date;
  /** The kind of charge it serves (API Pix `tipoCob`): a location made for a cob never serves a cobv, and back. */
  tipoCob: TipoCob;
  /** The cob currently served at this location, if any. */
  txid?: string;
}

export type TipoCob = 'cob' | 'cobv';

export interface StoredCob {
  txid: string;
  revisao: number;
  status: CobStatus;
  criacao: Date;
  expiracao: number;
  loc: StoredLocation;
  valorOriginal: string;
  /** API Pix `valor.modalidadeAlteracao`: 1 lets the payer choose the amount; absent or 0 fixes it. */
  modalidadeAlteracao: 0 | 1;
  chave: string;
  solicitacaoPagador?: string;
  devedor?: Devedor;
  pix: PixRecebido[];
}

/** API Pix `devedor` of a cob: a person (`cpf`) or a company (`cnpj`), with the name. */
export type Devedor = { cpf: string; nome: string } | { cnpj: string; nome: string };

export interface NewCob {
  txid: string;
  expiracao: number;
  valorOriginal: string;
  modalidadeAlteracao: 0 | 1;
  chave: string;
  solicitacaoPagador?: string;
  devedor?: Devedor;
}

/** What a revision may change; `loc` is not part of the cob's history (API Pix `Revisao`). */
export type CobChange = Partial<
  Pick<StoredCob, 'expiracao' | 'valorOriginal' | 'modalidadeAlteracao' | 'solicitacaoPagador' | 'status'>
>;

/** Why a payer's Pix is refused (the receiving PSP answers the pacs.008 with a rejection). */
export type PaymentRefusal = 'not_active' | 'expired' | 'fixed_amount';

/** Why a revision is refused: the cob left ATIVA meanwhile, or the location asked for cannot serve it. */
export type RevisionRefusal = 'not_active' | 'no_location' | 'location_taken' | 'location_kind';

/** Why a devolução is refused. */
export type DevolucaoRefusal = 'id_reused' | 'exceeds' | 'window_closed';

/** An access token as the issuer keeps it (by hash). */
export interface IssuedToken {
  clientId: string;
  scopes: string[];
  expiresAt: Date;
}

// BCB rule: a Pix may be refunded within 90 days of its settlement.
const REFUND_WINDOW_MS = 90 * 24 * 60 * 60 * 1000;
const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** Efí's reason for a devolução the account's balance cannot cover (its callback example of a refused devolução). */
export const INSUFFICIENT_BALANCE_REFUSAL = 'Saldo insuficiente para realizar a devolução.';

interface CobRow {
  txid: string;
  revisao: number;
  status: CobStatus;
  criacao: Date;
  expiracao: number;
  loc_id: string;
  access_token: string;
  location: string;
  loc_criacao: Date;
  loc_tipo_cob: TipoCob;
  valor_original_centavos: string;
  modalidade_alteracao: number;
  chave: string;
  solicitacao_pagador: string | null;
  devedor_cpf: string | null;
  devedor_cnpj: string | null;
  devedor_nome: string | null;
}

interface DevolucaoRow {
  end_to_end_id: string;
  id: string;
  rtr_id: string;
  valor_centavos: string;
  natureza: DevolucaoNatureza;
  descricao: string | null;
  status: DevolucaoStatus;
  motivo: string | null;
  solicitacao: Date;
  liquidacao: Date | null;
}

const COB_COLUMNS = `c.txid, c.revisao, c.status, c.criacao, c.expiracao, c.loc_id, l.access_token, l.location,
  l.criacao AS loc_criacao, l.tipo_cob AS loc_tipo_cob, c.valor_original_centavos, c.modalidade_alteracao, c.chave, c.solicitacao_pagador,
  c.devedor_cpf, c.devedor_cnpj, c.devedor_nome`;

/**
 * The simulated bank's books: accounts, tokens, locations, immediate charges, received Pix and their devoluções, in
 * PostgreSQL, so a restart forgets nothing a real PSP would remember. Every decision a racing request could upset (a
 * payment, a revision, a devolução) is taken under a lock on the row it changes, and the schema's constraints hold
 * the rest (one Pix per cob, one cob per location).
 */
export class CobStore extends BooksWithWebhook {
  constructor(private readonly ispb: string) {
    super('webhooks');
  }

  /** The account of a Pix key, opened on first start with the client that owns it. */
  async openAccount(pixKey: string, clientId: string, cnpj: string): Promise<void> {
    await this.db.query(
      `INSERT INTO accounts (pix_key, client_id, cnpj) VALUES ($1, $2, $3)
       ON CONFLICT (pix_key) DO UPDATE SET client_id = EXCLUDED.client_id, cnpj = EXCLUDED.cnpj`,
      [pixKey, clientId, cnpj],
    );
  }

  async recordToken(token: string, issued: IssuedToken): Promise<void> {
    // Expired tokens are of no use to anyone: each issue clears them, so the table stays the size of those in use.
    await this.db.query('DELETE FROM access_tokens WHERE expires_at < now()');
    await this.db.query(
      'INSERT INTO access_tokens (token_sha256, client_id, scopes, expires_at) VALUES ($1, $2, $3, $4)',
      [tokenHash(token), issued.clientId, issued.scopes, issued.expiresAt],
    );
  }

  async token(token: string): Promise<IssuedToken | undefined> {
    const [row] = (await this.db.query(
      'SELECT client_id, scopes, expires_at FROM access_tokens WHERE token_sha256 = $1',
      [tokenHash(token)],
    )) as Array<{ client_id: string; scopes: string[]; expires_at: Date }>;
    return row && { clientId: row.client_id, scopes: row.scopes, expiresAt: row.expires_at };
  }

  get(txid: string): Promise<StoredCob | undefined> {
    return this.readCob(this.db.manager, txid);
  }

  async getPix(endToEndId: string): Promise<PixRecebido | undefined> {
    return (await this.readPix(this.db.manager, 'p.end_to_end_id = $1', [endToEndId]))[0];
  }

  /**
   * API Pix `GET /pix`: the Pix received into `chave`'s cobs with `horario` in [inicio, fim], oldest first, a page of
   * them (`page` from 0), with their devoluções, and how many there are in all.
   */
  async listPix(
    chave: string,
    inicio: Date,
    fim: Date,
    page: number,
    perPage: number,
  ): Promise<{ pix: PixRecebido[]; total: number }> {
    // A cobr's Pix (Pix Automático) is the account's as a cob's is.
    const inRange = `p.txid IN (SELECT txid FROM cobs WHERE chave = $1 UNION ALL SELECT txid FROM cobrs WHERE pix_key = $1)
      AND p.horario BETWEEN $2 AND $3`;
    const [{ total }] = (await this.db.query(`SELECT count(*)::int AS total FROM pix p WHERE ${inRange}`, [
      chave,
      inicio,
      fim,
    ])) as [{ total: number }];
    const pix = await this.readPix(
      this.db.manager,
      inRange,
      [chave, inicio, fim, perPage, page * perPage],
      'ORDER BY p.horario, p.end_to_end_id LIMIT $4 OFFSET $5',
    );
    return { pix, total };
  }

  async getLocation(id: number): Promise<StoredLocation | undefined> {
    if (!Number.isSafeInteger(id)) return undefined;
    const [row] = (await this.db.query(
      `SELECT l.id, l.access_token, l.location, l.criacao, l.tipo_cob, c.txid
       FROM locations l LEFT JOIN cobs c ON c.loc_id = l.id WHERE l.id = $1`,
      [id],
    )) as Array<{
      id: string;
      access_token: string;
      location: string;
      criacao: Date;
      tipo_cob: TipoCob;
      txid: string | null;
    }>;
    return row && locationOf(row.id, row.access_token, row.location, row.criacao, row.txid, row.tipo_cob);
  }

  /** The cob a payer's bank finds at a location URL; none once the cob has moved to another location. */
  async getByAccessToken(accessToken: string): Promise<StoredCob | undefined> {
    const [row] = (await this.db.query(
      `SELECT c.txid FROM cobs c JOIN locations l ON l.id = c.loc_id WHERE l.access_token = $1 AND c.tipo_cob = 'cob'`,
      [accessToken],
    )) as Array<{ txid: string }>;
    return row && this.get(row.txid);
  }

  /** `POST /loc`: a new location for a charge of that kind, not yet linked to any. */
  createLocation(locationBase: string, now: Date, tipoCob: TipoCob = 'cob'): Promise<StoredLocation> {
    return this.insertLocation(this.db.manager, locationBase, now, tipoCob);
  }

  /** A new cob at a new location; `txid_taken` when that txid already names one (a racing PUT included). */
  async create(input: NewCob, locationBase: string, now: Date): Promise<StoredCob | 'txid_taken'> {
    try {
      return await this.db.transaction(async (tx) => {
        const loc = await this.insertLocation(tx, locationBase, now);
        await tx.query(
          `INSERT INTO cobs (txid, revisao, status, criacao, expiracao, loc_id, valor_original_centavos,
             modalidade_alteracao, chave, solicitacao_pagador, devedor_cpf, devedor_cnpj, devedor_nome)
           VALUES ($1, 0, 'ATIVA', $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
          [
            input.txid,
            now,
            input.expiracao,
            loc.id,
            toCentavos(input.valorOriginal),
            input.modalidadeAlteracao,
            input.chave,
            input.solicitacaoPagador ?? null,
            input.devedor && 'cpf' in input.devedor ? input.devedor.cpf : null,
            input.devedor && 'cnpj' in input.devedor ? input.devedor.cnpj : null,
            input.devedor?.nome ?? null,
          ],
        );
        return (await this.readCob(tx, input.txid))!;
      });
    } catch (error) {
      if ((error as { code?: string }).code === UNIQUE_VIOLATION) return 'txid_taken';
      throw error;
    }
  }

  /**
   * Applies a revision to a cob still ATIVA. `revisao` grows by one only when a field of the cob really changes;
   * moving it to another location alone does not count (API Pix `Revisao`), and the old location stops serving it.
   */
  async revise(txid: string, change: CobChange, locId?: number): Promise<StoredCob | RevisionRefusal> {
    return this.db.transaction(async (tx) => {
      const cob = await this.readCob(tx, txid, { lock: true });
      if (cob === undefined || cob.status !== 'ATIVA') return 'not_active';
      let loc = cob.loc;
      if (locId !== undefined && locId !== cob.loc.id) {
        const [target] = (await tx.query(
          `SELECT l.id, l.tipo_cob, c.txid FROM locations l LEFT JOIN cobs c ON c.loc_id = l.id WHERE l.id = $1
           FOR UPDATE OF l`,
          [locId],
        )) as Array<{ id: string; tipo_cob: TipoCob; txid: string | null }>;
        if (target === undefined) return 'no_location';
        if (target.tipo_cob !== 'cob') return 'location_kind';
        if (target.txid !== null) return 'location_taken';
        loc = { ...loc, id: locId };
      }
      const current: CobChange = cob;
      const changed = Object.entries(change).filter(
        ([key, value]) =>
          value !== undefined &&
          (key === 'valorOriginal'
            ? toCentavos(value as string) !== toCentavos(cob.valorOriginal)
            : value !== current[key as keyof CobChange]),
      );
      const next = { ...cob, ...Object.fromEntries(changed) } as StoredCob;
      try {
        await tx.query(
          `UPDATE cobs SET revisao = $2, status = $3, expiracao = $4, valor_original_centavos = $5,
             modalidade_alteracao = $6, solicitacao_pagador = $7, loc_id = $8
           WHERE txid = $1`,
          [
            txid,
            cob.revisao + (changed.length > 0 ? 1 : 0),
            next.status,
            next.expiracao,
            toCentavos(next.valorOriginal),
            next.modalidadeAlteracao,
            next.solicitacaoPagador ?? null,
            loc.id,
          ],
        );
      } catch (error) {
        // Another cob was moved to that location between our look and our update.
        if ((error as { code?: string }).code === UNIQUE_VIOLATION) return 'location_taken';
        throw error;
      }
      return (await this.readCob(tx, txid))!;
    });
  }

  /**
   * A payer's Pix into the cob, as a real receiving PSP takes it: only while the cob is ATIVA and within its window,
   * of exactly `valor.original` unless `modalidadeAlteracao` is 1, and once (the cob concludes). Two payers racing on
   * one cob queue on its row: the first concludes it, the second finds it CONCLUIDA.
   */
  async receive(
    txid: string,
    valorCentavos: number | undefined,
    now: Date,
    payer: PayerReport = {},
  ): Promise<{ cob: StoredCob; pix: PixRecebido } | PaymentRefusal> {
    return this.db.transaction(async (tx) => {
      const cob = await this.readCob(tx, txid, { lock: true });
      if (cob === undefined || cob.status !== 'ATIVA') return 'not_active';
      if (this.isExpired(cob, now)) return 'expired';
      const valor = valorCentavos ?? toCentavos(cob.valorOriginal);
      if (cob.modalidadeAlteracao === 0 && valor !== toCentavos(cob.valorOriginal)) return 'fixed_amount';
      const received: Omit<PixRecebido, 'devolucoes'> = {
        endToEndId: this.identifier('E', now),
        txid: cob.txid,
        valor: toPixAmount(valor),
        chave: cob.chave,
        horario: now.toISOString(),
        ...payer,
      };
      await tx.query(
        'INSERT INTO pix (end_to_end_id, txid, valor_centavos, horario, document) VALUES ($1, $2, $3, $4, $5)',
        [received.endToEndId, txid, valor, now, JSON.stringify(received)],
      );
      await tx.query(`UPDATE cobs SET status = 'CONCLUIDA' WHERE txid = $1`, [txid]);
      return { cob: (await this.readCob(tx, txid))!, pix: { ...received, devolucoes: [] } };
    });
  }

  /**
   * A new devolução of the Pix `endToEndId`, in processing until `settle`, under a lock on the Pix so two racing
   * requests never refund more than it brought in. A replay of the same request (its answer lost) gets the devolução
   * it made. A MED one (`natureza` MED_*) is the payer's bank's claim: it waits for the MED's end, not for the balance.
   */
  async requestDevolucao(
    endToEndId: string,
    input: { id: string; valor: string; descricao?: string; natureza?: DevolucaoNatureza },
    now: Date,
    settlesAt: Date,
  ): Promise<Devolucao | DevolucaoRefusal> {
    return this.db.transaction(async (tx) => {
      const [pix] = (await tx.query(
        'SELECT valor_centavos, horario FROM pix WHERE end_to_end_id = $1 FOR UPDATE',
        [endToEndId],
      )) as Array<{ valor_centavos: string; horario: Date }>;
      if (pix === undefined) throw new Error(`no Pix ${endToEndId}`);
      const devolucoes = await this.readDevolucoes(tx, [endToEndId]);
      const existing = devolucoes.find((devolucao) => devolucao.id === input.id);
      if (existing)
        return toCentavos(existing.valor) === toCentavos(input.valor) &&
          existing.descricao === input.descricao &&
          existing.natureza === (input.natureza ?? 'ORIGINAL')
          ? existing
          : 'id_reused';
      const refunded = devolucoes
        .filter((devolucao) => devolucao.status !== 'NAO_REALIZADO')
        .reduce((sum, devolucao) => sum + toCentavos(devolucao.valor), 0);
      if (toCentavos(input.valor) > Number(pix.valor_centavos) - refunded) return 'exceeds';
      if (now.getTime() - pix.horario.getTime() > REFUND_WINDOW_MS) return 'window_closed';
      // The money leaves the account's balance: one that cannot cover it is refused when it settles, as Efí tells it
      // in its callback example (https://dev.efipay.com.br/docs/api-pix/webhooks/). Under the account's lock, which
      // its envios take too, so the two never spend the same money.
      // The account of the charge the Pix paid: a cob or cobv, or a Pix Automático cycle.
      const [account] = (await tx.query(
        `SELECT a.pix_key FROM accounts a JOIN pix p ON p.end_to_end_id = $1
         WHERE a.pix_key IN (SELECT c.chave FROM cobs c WHERE c.txid = p.txid
                             UNION ALL SELECT r.pix_key FROM cobrs r WHERE r.txid = p.txid)
         FOR UPDATE OF a`,
        [endToEndId],
      )) as Array<{ pix_key: string }>;
      const natureza = input.natureza ?? 'ORIGINAL';
      const uncovered =
        natureza === 'ORIGINAL' &&
        account !== undefined &&
        toCentavos(input.valor) > (await accountBalance(tx, account.pix_key));
      await tx.query(
        `INSERT INTO devolucoes (end_to_end_id, id, rtr_id, valor_centavos, natureza, descricao, status,
           solicitacao, settles_at, planned_refusal)
         VALUES ($1, $2, $3, $4, $9, $5, 'EM_PROCESSAMENTO', $6, $7, $8)`,
        [
          endToEndId,
          input.id,
          this.identifier('D', now),
          toCentavos(input.valor),
          input.descricao ?? null,
          now,
          settlesAt,
          uncovered ? INSUFFICIENT_BALANCE_REFUSAL : null,
          natureza,
        ],
      );
      return (await this.readDevolucoes(tx, [endToEndId])).find((devolucao) => devolucao.id === input.id)!;
    });
  }

  /**
   * Settles a devolução still in processing: DEVOLVIDO, or NAO_REALIZADO with the refusal planned for it or `refusal`
   * as its reason. Answers the Pix
   * with its devoluções then, or nothing when it was settled already (by another pass, before a restart).
   */
  async settle(
    endToEndId: string,
    id: string,
    refusal: string | undefined,
    now: Date,
  ): Promise<PixRecebido | undefined> {
    // A refusal planned when it was asked for (the balance could not cover it) stands first.
    const [, count] = (await this.db.query(
      `UPDATE devolucoes SET
         status = CASE WHEN coalesce(planned_refusal, $3) IS NULL THEN 'DEVOLVIDO' ELSE 'NAO_REALIZADO' END,
         motivo = coalesce(planned_refusal, $3),
         liquidacao = CASE WHEN coalesce(planned_refusal, $3) IS NULL THEN $4::timestamptz END
       WHERE end_to_end_id = $1 AND id = $2 AND status = 'EM_PROCESSAMENTO'`,
      [endToEndId, id, refusal ?? null, now],
    )) as [unknown, number];
    return count === 0 ? undefined : this.getPix(endToEndId);
  }

  /**
   * The devoluções still in processing, with when each settles: what a restart picks up again. A MED one ends when
   * the sandbox says how (`settle`), never on a timer.
   */
  async devolucoesInProcessing(): Promise<
    Array<{ endToEndId: string; id: string; descricao?: string; settlesAt: Date }>
  > {
    const rows = (await this.db.query(
      `SELECT end_to_end_id, id, descricao, settles_at FROM devolucoes WHERE status = 'EM_PROCESSAMENTO' AND natureza = 'ORIGINAL'`,
    )) as Array<{ end_to_end_id: string; id: string; descricao: string | null; settles_at: Date }>;
    return rows.map((row) => ({
      endToEndId: row.end_to_end_id,
      id: row.id,
      ...(row.descricao === null ? {} : { descricao: row.descricao }),
      settlesAt: row.settles_at,
    }));
  }

  isExpired(cob: StoredCob, now: Date): boolean {
    return now.getTime() >= cob.criacao.getTime() + cob.expiracao * 1000;
  }

  /** A new location; a cobv's lives under `cobv/` (API Pix serves its payload at `GET /cobv/{pixUrlAccessToken}`). */
  async insertLocation(
    tx: EntityManager,
    locationBase: string,
    now: Date,
    tipoCob: TipoCob = 'cob',
  ): Promise<StoredLocation> {
    const accessToken = randomUUID().replace(/-/g, '');
    const location = `${locationBase}/${tipoCob === 'cobv' ? 'cobv/' : ''}${accessToken}`;
    const [row] = (await tx.query(
      'INSERT INTO locations (access_token, location, criacao, tipo_cob) VALUES ($1, $2, $3, $4) RETURNING id',
      [accessToken, location, now, tipoCob],
    )) as Array<{ id: string }>;
    return locationOf(row!.id, accessToken, location, now, null, tipoCob);
  }

  private async readCob(
    tx: EntityManager,
    txid: string,
    { lock = false } = {},
  ): Promise<StoredCob | undefined> {
    const [row] = (await tx.query(
      `SELECT ${COB_COLUMNS} FROM cobs c JOIN locations l ON l.id = c.loc_id WHERE c.txid = $1 AND c.tipo_cob = 'cob'
       ${lock ? 'FOR UPDATE OF c' : ''}`,
      [txid],
    )) as CobRow[];
    if (row === undefined) return undefined;
    return {
      txid: row.txid,
      revisao: row.revisao,
      status: row.status,
      criacao: row.criacao,
      expiracao: row.expiracao,
      loc: locationOf(
        row.loc_id,
        row.access_token,
        row.location,
        row.loc_criacao,
        row.txid,
        row.loc_tipo_cob,
      ),
      valorOriginal: toPixAmount(Number(row.valor_original_centavos)),
      modalidadeAlteracao: row.modalidade_alteracao === 1 ? 1 : 0,
      chave: row.chave,
      ...(row.solicitacao_pagador === null ? {} : { solicitacaoPagador: row.solicitacao_pagador }),
      ...devedorOf(row),
      pix: await this.readPix(tx, 'p.txid = $1', [txid]),
    };
  }

  async readPix(
    tx: EntityManager,
    where: string,
    params: unknown[],
    order = 'ORDER BY p.horario',
  ): Promise<PixRecebido[]> {
    const rows = (await tx.query(
      `SELECT p.end_to_end_id, p.document FROM pix p WHERE ${where} ${order}`,
      params,
    )) as Array<{ end_to_end_id: string; document: Omit<PixRecebido, 'devolucoes'> }>;
    const devolucoes = await this.readDevolucoes(
      tx,
      rows.map((row) => row.end_to_end_id),
    );
    return rows.map((row) => ({
      ...row.document,
      devolucoes: devolucoes.filter((devolucao) => devolucao.endToEndId === row.end_to_end_id),
    }));
  }

  private async readDevolucoes(
    tx: EntityManager,
    endToEndIds: string[],
  ): Promise<Array<Devolucao & { endToEndId: string }>> {
    if (endToEndIds.length === 0) return [];
    const rows = (await tx.query(
      `SELECT end_to_end_id, id, rtr_id, valor_centavos, natureza, descricao, status, motivo, solicitacao, liquidacao
       FROM devolucoes WHERE end_to_end_id = ANY($1) ORDER BY solicitacao, id`,
      [endToEndIds],
    )) as DevolucaoRow[];
    // `endToEndId` is dropped by the views: API Pix's Devolucao has no such field.
    return rows.map(
      (row) =>
        Object.defineProperty(
          {
            id: row.id,
            rtrId: row.rtr_id,
            valor: toPixAmount(Number(row.valor_centavos)),
            natureza: row.natureza,
            ...(row.descricao === null ? {} : { descricao: row.descricao }),
            horario: {
              solicitacao: row.solicitacao.toISOString(),
              ...(row.liquidacao === null ? {} : { liquidacao: row.liquidacao.toISOString() }),
            },
            status: row.status,
            ...(row.motivo === null ? {} : { motivo: row.motivo }),
          },
          'endToEndId',
          { value: row.end_to_end_id, enumerable: false },
        ) as Devolucao & { endToEndId: string },
    );
  }

  /**
   * `E` (endToEndId) or `D` (rtrId) + ISPB (8) + yyyyMMddHHmm (UTC) + 11 random alphanumerics: 32 characters, as
   * SPI mints them.
   */
  identifier(kind: 'E' | 'D', now: Date): string {
    const stamp = now.toISOString().replace(/\D/g, '').slice(0, 12);
    const suffix = Array.from(randomBytes(11), (byte) => ALPHANUMERIC[byte % ALPHANUMERIC.length]).join('');
    return `${kind}${this.ispb}${stamp}${suffix}`;
  }
}

export function locationOf(
  id: string | number,
  accessToken: string,
  location: string,
  criacao: Date,
  txid: string | null,
  tipoCob: TipoCob,
): StoredLocation {
  return { id: Number(id), accessToken, location, criacao, tipoCob, ...(txid === null ? {} : { txid }) };
}

function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function toCentavos(amount: string): number {
  const [reais, centavos] = amount.split('.');
  return Number(reais) * 100 + Number(centavos);
}

export function toPixAmount(centavos: number): string {
  const digits = String(centavos).padStart(3, '0');
  return `${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

/** The cob's debtor as API Pix shows it, when it has one. */
function devedorOf(row: CobRow): { devedor?: Devedor } {
  if (row.devedor_nome === null) return {};
  if (row.devedor_cpf !== null) return { devedor: { cpf: row.devedor_cpf, nome: row.devedor_nome } };
  return row.devedor_cnpj === null ? {} : { devedor: { cnpj: row.devedor_cnpj, nome: row.devedor_nome } };
}
