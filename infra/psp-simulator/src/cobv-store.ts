import { type EntityManager } from 'typeorm';
import { Books, ListConditions, UNIQUE_VIOLATION } from './books';
import {
  type CobStatus,
  type CobStore,
  type PayerReport,
  type PixRecebido,
  type StoredLocation,
  locationOf,
  toCentavos,
  toPixAmount,
} from './cob-store';
import { brasiliaDay } from './business-days';
import { type AmountDue, type CobvValorRules, amountDue } from './cobv-amount';

/** API Pix `devedor` of a cobv: a CPF or a CNPJ with the name, and the optional contact and address fields. */
export interface CobvDevedor {
  cpf?: string;
  cnpj?: string;
  nome: string;
  email?: string;
  logradouro?: string;
  cidade?: string;
  uf?: string;
  cep?: string;
}

/** The rules of `valor` beside `original`, as API Pix states them (`CobVValor`). */
export type CobvRegras = Omit<CobvValorRules, 'originalCentavos'>;

export interface InfoAdicional {
  nome: string;
  valor: string;
}

/** What defines a cobv: what a PUT states and a PATCH changes (its `loc` apart). */
export interface CobvData {
  dataDeVencimento: string;
  validadeAposVencimento: number;
  valorOriginal: string;
  regras: CobvRegras;
  chave: string;
  devedor: CobvDevedor;
  solicitacaoPagador?: string;
  infoAdicionais?: InfoAdicional[];
}

export interface StoredCobv extends CobvData {
  txid: string;
  revisao: number;
  status: CobStatus;
  criacao: Date;
  loc: StoredLocation;
  pix: PixRecebido[];
}

/** Why a cobv cannot take the location asked for. */
export type LocationRefusal = 'no_location' | 'location_taken' | 'location_kind';
/** Why a PUT or a PATCH is refused. */
export type CobvWriteRefusal = 'not_active' | 'txid_taken' | LocationRefusal;
/** Why a payer's Pix into a cobv is refused. */
export type CobvPaymentRefusal = 'not_active' | 'past_window' | 'wrong_amount';

export interface CobvListFilter {
  chave: string;
  inicio: Date;
  fim: Date;
  cpf?: string;
  cnpj?: string;
  locationPresente?: boolean;
  status?: string;
  page: number;
  perPage: number;
}

interface CobvRow {
  txid: string;
  revisao: number;
  status: CobStatus;
  criacao: Date;
  data_de_vencimento: string;
  validade_apos_vencimento: number;
  loc_id: string;
  access_token: string;
  location: string;
  loc_criacao: Date;
  valor_original_centavos: string;
  valor_regras: CobvRegras | null;
  chave: string;
  solicitacao_pagador: string | null;
  devedor_cpf: string | null;
  devedor_cnpj: string | null;
  devedor_nome: string;
  devedor_complemento: Omit<CobvDevedor, 'cpf' | 'cnpj' | 'nome'> | null;
  info_adicionais: InfoAdicional[] | null;
}

const COBV_COLUMNS = `c.txid, c.revisao, c.status, c.criacao, to_char(c.data_de_vencimento, 'YYYY-MM-DD') AS data_de_vencimento,
  c.validade_apos_vencimento, c.loc_id, l.access_token, l.location, l.criacao AS loc_criacao,
  c.valor_original_centavos, c.valor_regras, c.chave, c.solicitacao_pagador, c.devedor_cpf, c.devedor_cnpj,
  c.devedor_nome, c.devedor_complemento, c.info_adicionais`;

/**
 * The simulated bank's charges with a due date (API Pix `cobv`), in the same books as the immediate ones (one txid
 * space, one Pix per charge, one charge per location), each decision taken under a lock on the charge's row. Every
 * revision is kept as it was made (`cob_revisoes`), so a past one can be read back.
 */
export class CobvStore extends Books {
  constructor(private readonly cobs: CobStore) {
    super();
  }

  get(txid: string): Promise<StoredCobv | undefined> {
    return this.read(this.db.manager, txid);
  }

  /** The cobv as revision `revisao` made it (its Pix are the current record's), or undefined when there is none. */
  async revision(txid: string, revisao: number): Promise<StoredCobv | undefined> {
    const current = await this.get(txid);
    if (current === undefined || revisao > current.revisao) return undefined;
    if (revisao === current.revisao) return current;
    const [row] = (await this.db.query('SELECT document FROM cob_revisoes WHERE txid = $1 AND revisao = $2', [
      txid,
      revisao,
    ])) as Array<{ document: Omit<StoredCobv, 'criacao' | 'loc' | 'pix'> & { loc: StoredLocation } }>;
    if (row === undefined) return undefined;
    const { loc, ...rest } = row.document;
    return {
      ...rest,
      criacao: current.criacao,
      loc: { ...loc, criacao: new Date(loc.criacao as unknown as string) },
      pix: [],
    };
  }

  async getByAccessToken(accessToken: string): Promise<StoredCobv | undefined> {
    const [row] = (await this.db.query(
      `SELECT c.txid FROM cobs c JOIN locations l ON l.id = c.loc_id WHERE l.access_token = $1 AND c.tipo_cob = 'cobv'`,
      [accessToken],
    )) as Array<{ txid: string }>;
    return row && this.get(row.txid);
  }

  /**
   * `PUT /cobv/{txid}`: a new cobv (at location `locId`, else at a new one), or, when the txid already names one, the
   * same request again (answered with the cobv as it is, whatever its status: a replay whose answer was lost changes
   * nothing) or a new version of it while it is ATIVA (a revision). `created` tells a new cobv from an existing one.
   */
  async put(
    txid: string,
    data: CobvData,
    locId: number | undefined,
    locationBase: string,
    now: Date,
  ): Promise<{ cobv: StoredCobv; created: boolean } | CobvWriteRefusal> {
    try {
      return await this.db.transaction(async (tx) => {
        const [existing] = (await tx.query('SELECT tipo_cob, chave FROM cobs WHERE txid = $1 FOR UPDATE', [
          txid,
        ])) as Array<{ tipo_cob: string; chave: string }>;
        // A txid names one charge of one receiver: an immediate one's, or another account's, is not this cobv's.
        if (existing !== undefined && (existing.tipo_cob !== 'cobv' || existing.chave !== data.chave))
          return 'txid_taken';
        if (existing !== undefined) {
          const revised = await this.applyRevision(tx, txid, data, locId, undefined);
          return typeof revised === 'string' ? revised : { cobv: revised, created: false };
        }
        let loc: StoredLocation;
        if (locId === undefined) loc = await this.cobs.insertLocation(tx, locationBase, now, 'cobv');
        else {
          const target = await this.freeLocation(tx, locId, txid);
          if (typeof target === 'string') return target;
          loc = target;
        }
        await tx.query(
          `INSERT INTO cobs (txid, tipo_cob, revisao, status, criacao, loc_id, valor_original_centavos,
             modalidade_alteracao, chave, solicitacao_pagador, devedor_cpf, devedor_cnpj, devedor_nome,
             data_de_vencimento, validade_apos_vencimento, valor_regras, devedor_complemento, info_adicionais)
           VALUES ($1, 'cobv', 0, 'ATIVA', $2, $3, $4, 0, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
          [txid, now, loc.id, ...dataColumns(data)],
        );
        const cobv = (await this.read(tx, txid))!;
        await this.keepRevision(tx, cobv);
        return { cobv, created: true };
      });
    } catch (error) {
      if ((error as { code?: string }).code !== UNIQUE_VIOLATION) throw error;
      // A racing PUT made it first: the answer is what that one made of it, read again. A txid another kind of charge
      // holds (a Pix Automático cycle's) is no race: taken, as for a cob.
      if ((await this.read(this.db.manager, txid)) === undefined) return 'txid_taken';
      return this.put(txid, data, locId, locationBase, now);
    }
  }

  /** `PATCH /cobv/{txid}`: the changed data, a move to `locId`, or the removal (`status`), on a cobv still ATIVA. */
  async revise(
    txid: string,
    change: (current: StoredCobv) => CobvData,
    locId: number | undefined,
    status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' | 'REMOVIDA_PELO_PSP' | undefined,
  ): Promise<StoredCobv | CobvWriteRefusal> {
    return this.db.transaction(async (tx) => {
      const current = await this.read(tx, txid, { lock: true });
      if (current === undefined || current.status !== 'ATIVA') return 'not_active';
      return this.applyRevision(tx, txid, change(current), locId, status);
    });
  }

  /**
   * API Pix `GET /cobv`: the account's cobvs created in [inicio, fim] matching the filters, oldest first, a page of
   * them, and how many there are in all.
   */
  async list(filter: CobvListFilter): Promise<{ cobvs: StoredCobv[]; total: number }> {
    const conditions = new ListConditions(
      [`c.tipo_cob = 'cobv'`, 'c.chave = $1', 'c.criacao BETWEEN $2 AND $3'],
      [filter.chave, filter.inicio, filter.fim],
    )
      .add('c.devedor_cpf = ?', filter.cpf)
      .add('c.devedor_cnpj = ?', filter.cnpj)
      .add('c.status = ?', filter.status);
    // Every cobv the simulator keeps is at a location.
    if (filter.locationPresente === false) conditions.also('false');
    const { rows, total } = await this.page<{ txid: string }>(
      'c.txid',
      'FROM cobs c',
      conditions,
      'c.criacao, c.txid',
      filter.page,
      filter.perPage,
    );
    const cobvs = await Promise.all(rows.map((row) => this.get(row.txid)));
    return { cobvs: cobvs.filter((cobv): cobv is StoredCobv => cobv !== undefined), total };
  }

  /**
   * A payer's Pix into the cobv on the simulator's date (in Brasília): only while it is ATIVA and within its payable
   * window, of exactly what is due that day (`valor.final`, unless the payer pays another amount, which is refused),
   * and once. The Pix lists what its amount is made of (`componentesValor`).
   */
  async receive(
    txid: string,
    valorCentavos: number | undefined,
    now: Date,
    payer: PayerReport = {},
  ): Promise<{ cobv: StoredCobv; pix: PixRecebido; due: AmountDue } | CobvPaymentRefusal> {
    return this.db.transaction(async (tx) => {
      const cobv = await this.read(tx, txid, { lock: true });
      if (cobv === undefined || cobv.status !== 'ATIVA') return 'not_active';
      const due = amountDueOn(cobv, brasiliaDay(now));
      if (due === 'past_window') return 'past_window';
      if (valorCentavos !== undefined && valorCentavos !== due.final) return 'wrong_amount';
      const received: Omit<PixRecebido, 'devolucoes'> = {
        endToEndId: this.cobs.identifier('E', now),
        txid,
        valor: toPixAmount(due.final),
        componentesValor: componentesValor(due),
        chave: cobv.chave,
        horario: now.toISOString(),
        ...payer,
      };
      await tx.query(
        'INSERT INTO pix (end_to_end_id, txid, valor_centavos, horario, document) VALUES ($1, $2, $3, $4, $5)',
        [received.endToEndId, txid, due.final, now, JSON.stringify(received)],
      );
      await tx.query(`UPDATE cobs SET status = 'CONCLUIDA' WHERE txid = $1`, [txid]);
      return { cobv: (await this.read(tx, txid))!, pix: { ...received, devolucoes: [] }, due };
    });
  }

  private async applyRevision(
    tx: EntityManager,
    txid: string,
    data: CobvData,
    locId: number | undefined,
    status: CobStatus | undefined,
  ): Promise<StoredCobv | CobvWriteRefusal> {
    const current = (await this.read(tx, txid, { lock: true }))!;
    const sameData =
      JSON.stringify(comparable(current)) === JSON.stringify(comparable({ ...current, ...data }));
    const moves = locId !== undefined && locId !== current.loc.id;
    // The same request again changes nothing, whatever the cobv's status now (a replay whose answer was lost).
    if (sameData && !moves && status === undefined) return current;
    if (current.status !== 'ATIVA') return 'not_active';
    let loc = current.loc;
    if (moves) {
      const target = await this.freeLocation(tx, locId, txid);
      if (typeof target === 'string') return target;
      loc = target;
    }
    const revisao = current.revisao + (sameData && status === undefined ? 0 : 1);
    try {
      await tx.query(
        `UPDATE cobs SET revisao = $2, status = $3, loc_id = $4, valor_original_centavos = $5, chave = $6,
           solicitacao_pagador = $7, devedor_cpf = $8, devedor_cnpj = $9, devedor_nome = $10, data_de_vencimento = $11,
           validade_apos_vencimento = $12, valor_regras = $13, devedor_complemento = $14, info_adicionais = $15
         WHERE txid = $1`,
        [txid, revisao, status ?? current.status, loc.id, ...dataColumns(data)],
      );
    } catch (error) {
      if ((error as { code?: string }).code === UNIQUE_VIOLATION) return 'location_taken';
      throw error;
    }
    const revised = (await this.read(tx, txid))!;
    if (revisao !== current.revisao) await this.keepRevision(tx, revised);
    return revised;
  }

  /** A location made for cobvs that no other charge uses (`txid` may already be at it). */
  private async freeLocation(
    tx: EntityManager,
    locId: number,
    txid: string,
  ): Promise<StoredLocation | LocationRefusal> {
    if (!Number.isSafeInteger(locId)) return 'no_location';
    const [target] = (await tx.query(
      `SELECT l.id, l.access_token, l.location, l.criacao, l.tipo_cob, c.txid
       FROM locations l LEFT JOIN cobs c ON c.loc_id = l.id WHERE l.id = $1 FOR UPDATE OF l`,
      [locId],
    )) as Array<{
      id: string;
      access_token: string;
      location: string;
      criacao: Date;
      tipo_cob: 'cob' | 'cobv';
      txid: string | null;
    }>;
    if (target === undefined) return 'no_location';
    if (target.tipo_cob !== 'cobv') return 'location_kind';
    if (target.txid !== null && target.txid !== txid) return 'location_taken';
    return locationOf(target.id, target.access_token, target.location, target.criacao, null, 'cobv');
  }

  private async keepRevision(tx: EntityManager, cobv: StoredCobv): Promise<void> {
    const { pix: _pix, criacao: _criacao, ...document } = cobv;
    await tx.query('INSERT INTO cob_revisoes (txid, revisao, document) VALUES ($1, $2, $3)', [
      cobv.txid,
      cobv.revisao,
      JSON.stringify(document),
    ]);
  }

  private async read(
    tx: EntityManager,
    txid: string,
    { lock = false } = {},
  ): Promise<StoredCobv | undefined> {
    const [row] = (await tx.query(
      `SELECT ${COBV_COLUMNS} FROM cobs c JOIN locations l ON l.id = c.loc_id
       WHERE c.txid = $1 AND c.tipo_cob = 'cobv' ${lock ? 'FOR UPDATE OF c' : ''}`,
      [txid],
    )) as CobvRow[];
    if (row === undefined) return undefined;
    return {
      txid: row.txid,
      revisao: row.revisao,
      status: row.status,
      criacao: row.criacao,
      dataDeVencimento: row.data_de_vencimento,
      validadeAposVencimento: row.validade_apos_vencimento,
      loc: locationOf(row.loc_id, row.access_token, row.location, row.loc_criacao, row.txid, 'cobv'),
      valorOriginal: toPixAmount(Number(row.valor_original_centavos)),
      regras: row.valor_regras ?? {},
      chave: row.chave,
      devedor: {
        ...(row.devedor_cpf === null ? {} : { cpf: row.devedor_cpf }),
        ...(row.devedor_cnpj === null ? {} : { cnpj: row.devedor_cnpj }),
        nome: row.devedor_nome,
        ...(row.devedor_complemento ?? {}),
      },
      ...(row.solicitacao_pagador === null ? {} : { solicitacaoPagador: row.solicitacao_pagador }),
      ...(row.info_adicionais === null ? {} : { infoAdicionais: row.info_adicionais }),
      pix: await this.cobs.readPix(tx, 'p.txid = $1', [txid]),
    };
  }
}

/** What the cobv asks for on a day (a day number), or `past_window`. */
export function amountDueOn(cobv: CobvData, day: number): AmountDue | 'past_window' {
  return amountDue(
    { dataDeVencimento: cobv.dataDeVencimento, validadeAposVencimento: cobv.validadeAposVencimento },
    { originalCentavos: toCentavos(cobv.valorOriginal), ...cobv.regras },
    day,
  );
}

/** API Pix `componentesValor` of a cobv's Pix: `original` always, the others when they count. */
export function componentesValor(due: AmountDue): Record<string, { valor: string }> {
  const parts: Record<string, { valor: string }> = { original: { valor: toPixAmount(due.original) } };
  for (const name of ['multa', 'juros', 'abatimento', 'desconto'] as const)
    if (due[name] > 0) parts[name] = { valor: toPixAmount(due[name]) };
  return parts;
}

/** The columns of a cobv's data, in the order the INSERT and UPDATE above list them. */
function dataColumns(data: CobvData): unknown[] {
  const { cpf, cnpj, nome, ...complemento } = data.devedor;
  return [
    toCentavos(data.valorOriginal),
    data.chave,
    data.solicitacaoPagador ?? null,
    cpf ?? null,
    cnpj ?? null,
    nome,
    data.dataDeVencimento,
    data.validadeAposVencimento,
    JSON.stringify(data.regras),
    Object.keys(complemento).length === 0 ? null : JSON.stringify(complemento),
    data.infoAdicionais === undefined ? null : JSON.stringify(data.infoAdicionais),
  ];
}

/** A cobv's data in one canonical form, to tell a change from the same data again. */
function comparable(data: CobvData): unknown {
  const sorted = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sorted)
      : typeof value === 'object' && value !== null
        ? Object.fromEntries(
            Object.entries(value)
              .filter(([, inner]) => inner !== undefined)
              .sort(([a], [b]) => a.localeCompare(b))
              .map(([key, inner]) => [key, sorted(inner)]),
          )
        : value;
  return sorted({
    dataDeVencimento: data.dataDeVencimento,
    validadeAposVencimento: data.validadeAposVencimento,
    valorOriginal: toCentavos(data.valorOriginal),
    regras: data.regras,
    chave: data.chave,
    devedor: data.devedor,
    solicitacaoPagador: data.solicitacaoPagador,
    infoAdicionais: data.infoAdicionais,
  });
}
