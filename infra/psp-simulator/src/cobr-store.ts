import { type Logger } from '@gateway/observability';
import { type EntityManager } from 'typeorm';
import { BooksWithWebhook, ListConditions, UNIQUE_VIOLATION } from './books';
import { dateOf, dayOf, onOrNextBusinessDay } from './business-days';
import { type PixRecebido, toPixAmount } from './cob-store';
import { recurrenceNow, todayOf } from './clock';
import { type Periodicidade, type PoliticaRetentativa } from './rec-store';

export type CobrStatus = 'CRIADA' | 'ATIVA' | 'CONCLUIDA' | 'EXPIRADA' | 'REJEITADA' | 'CANCELADA';
export type TentativaStatus = 'SOLICITADA' | 'AGENDADA' | 'PAGA' | 'CANCELADA' | 'REJEITADA' | 'EXPIRADA';

/** API Pix `CobRTentativas.tentativas[]`: an attempt to settle the cycle on a day. */
export interface Tentativa {
  dataLiquidacao: string;
  /** AGND: the attempt scheduled with the cycle; NTAG: a new attempt the receiver asked for (retentativa). */
  tipo: 'AGND' | 'NTAG' | 'RIFL';
  status: TentativaStatus;
  endToEndId: string;
  atualizacao: Array<{ status: TentativaStatus; data: string }>;
  rejeicao?: { codigo: string; descricao: string };
}

export interface CobrRecebedor {
  agencia?: string;
  conta: string;
  tipoConta: 'CORRENTE' | 'POUPANCA' | 'PAGAMENTO';
}

export interface NewCobr {
  idRec: string;
  dataDeVencimento: string;
  valorCentavos: number;
  ajusteDiaUtil: boolean;
  infoAdicional?: string;
  devedor?: Record<string, string>;
  recebedor: CobrRecebedor;
}

export interface StoredCobr extends NewCobr {
  txid: string;
  pixKey: string;
  status: CobrStatus;
  criacao: Date;
  ciclo: number;
  tentativas: Tentativa[];
  encerramento?: { cancelamento: { solicitante: string; codigo: string; descricao: string } };
  atualizacao: Array<{ status: CobrStatus; data: string }>;
  politicaRetentativa: PoliticaRetentativa;
  pix: PixRecebido[];
  /** Its recurrence's clock (how far ahead of the simulator's): the cycle's dates are read by it. */
  clockOffsetMs: number;
}

export type CobrRefusal =
  | 'rec_not_found'
  | 'rec_not_approved'
  | 'txid_taken'
  | 'cycle_taken'
  | 'before_today'
  | 'too_close'
  | 'before_first'
  | 'after_last'
  | 'not_fixed_amount';
export type CancelRefusal = 'not_found' | 'not_open' | 'too_late';
export type RetryRefusal =
  'not_found' | 'not_active' | 'policy' | 'pending' | 'not_future' | 'too_late' | 'too_many';

/** What happened to a cycle the clock or a request moved: told to the receiver (`cobr`, and `pix` when paid). */
export interface CobrEvent {
  cobr: StoredCobr;
  pix?: PixRecebido;
}

/**
 * BCB (Pix Automático's rules): the receiver's PSP sends a cycle's payment instruction 2 to 10 days before its due
 * date. A cycle created earlier waits (CRIADA) until 10 days before; one created later than 2 days before is refused.
 */
export const SCHEDULE_WINDOW_DAYS = 10;
export const MIN_NOTICE_DAYS = 2;
/** PERMITE_3R_7D: at most three new attempts, within seven days after the due date. */
export const MAX_RETRIES = 3;
export const RETRY_WINDOW_DAYS = 7;
const OPEN: CobrStatus[] = ['CRIADA', 'ATIVA'];
/** A cycle's steps in one sweep at most (sent, debited, retries, ended): a bound, not a schedule. */
const MAX_STEPS_PER_SWEEP = 10;
const PENDING: TentativaStatus[] = ['SOLICITADA', 'AGENDADA'];
const MONTHS: Record<Exclude<Periodicidade, 'SEMANAL'>, number> = {
  MENSAL: 1,
  TRIMESTRAL: 3,
  SEMESTRAL: 6,
  ANUAL: 12,
};

interface CobrRow {
  txid: string;
  id_rec: string;
  pix_key: string;
  status: CobrStatus;
  criacao: Date;
  data_de_vencimento: string;
  ciclo: number;
  valor_centavos: string;
  ajuste_dia_util: boolean;
  info_adicional: string | null;
  devedor: Record<string, string> | null;
  recebedor: CobrRecebedor;
  tentativas: Tentativa[];
  encerramento: StoredCobr['encerramento'] | null;
  atualizacao: StoredCobr['atualizacao'];
  falhar_proxima: string | null;
  politica_retentativa: PoliticaRetentativa;
  clock_offset_ms: string;
}

interface RecRow {
  id_rec: string;
  pix_key: string;
  status: string;
  periodicidade: Periodicidade;
  data_inicial: string;
  data_final: string | null;
  valor_rec_centavos: string | null;
  politica_retentativa: PoliticaRetentativa;
  clock_offset_ms: string;
  falhar_proxima: string | null;
}

const COLUMNS = `c.txid, c.id_rec, c.pix_key, c.status, c.criacao,
  to_char(c.data_de_vencimento, 'YYYY-MM-DD') AS data_de_vencimento, c.ciclo, c.valor_centavos, c.ajuste_dia_util,
  c.info_adicional, c.devedor, c.recebedor, c.tentativas, c.encerramento, c.atualizacao, c.falhar_proxima,
  r.politica_retentativa, r.clock_offset_ms`;

/**
 * The cycles of Pix Automático's recurrences (API Pix `cobr`) and the payer's bank debiting them on their day. Every
 * decision locks the recurrence's row and then the cycle's, in that order everywhere, so a debit, a cancellation of
 * the cycle or of its recurrence, and a retry request racing each other end in one state; the Pix table's unique txid
 * makes a second Pix for a cycle impossible whatever the code does.
 */
export class CobrStore extends BooksWithWebhook {
  /** `mintEndToEndId`: the id SPI gives a Pix (the one an attempt will settle as is minted when it is scheduled). */
  constructor(
    private readonly mintEndToEndId: (now: Date) => string,
    private readonly logger?: Logger,
  ) {
    super('webhooks_cobr');
  }

  get(txid: string): Promise<StoredCobr | undefined> {
    return this.read(this.db.manager, txid);
  }

  /**
   * A new cycle of an approved recurrence of `pixKey`, checked against it by its clock (`now` is the simulator's):
   * due at least 2 days ahead, within its first and last dates, of its fixed amount when it has one. Within the
   * scheduling window of its due date it is sent to the payer's bank at once (ATIVA, its first attempt AGENDADA);
   * before it, it stays CRIADA until the recurrence's clock reaches it. A txid names one cycle for good: a PUT that
   * meets one, even the same request again, is `txid_taken` (API Pix answers a PUT with 201 or a violation only).
   * A failure the sandbox kept on the recurrence for its next cycle is this one's.
   */
  async create(
    pixKey: string,
    txid: string,
    cobr: NewCobr,
    simulatorNow: Date,
  ): Promise<StoredCobr | CobrRefusal> {
    try {
      return await this.db.transaction(async (tx) => {
        const rec = await this.lockRec(tx, cobr.idRec);
        if (rec === undefined || rec.pix_key !== pixKey) return 'rec_not_found';
        if ((await this.read(tx, txid)) !== undefined) return 'txid_taken';
        if (rec.status !== 'APROVADA') return 'rec_not_approved';
        const now = recurrenceNow(simulatorNow, { clockOffsetMs: Number(rec.clock_offset_ms) });
        const today = todayOf(now);
        const refusal = cycleRefusal(rec, cobr, today);
        if (refusal !== undefined) return refusal;
        await tx.query(
          `INSERT INTO cobrs (txid, id_rec, pix_key, status, criacao, data_de_vencimento, ciclo, valor_centavos,
             ajuste_dia_util, info_adicional, devedor, recebedor, tentativas, atualizacao)
           VALUES ($1, $2, $3, 'CRIADA', $4, $5, $6, $7, $8, $9, $10, $11, '[]', $12)`,
          [
            txid,
            cobr.idRec,
            pixKey,
            now,
            cobr.dataDeVencimento,
            cycleOf(rec, cobr.dataDeVencimento),
            cobr.valorCentavos,
            cobr.ajusteDiaUtil,
            cobr.infoAdicional ?? null,
            cobr.devedor === undefined ? null : JSON.stringify(cobr.devedor),
            JSON.stringify(cobr.recebedor),
            JSON.stringify([{ status: 'CRIADA', data: now.toISOString() }]),
          ],
        );
        if (rec.falhar_proxima !== null) {
          await tx.query('UPDATE cobrs SET falhar_proxima = $2 WHERE txid = $1', [txid, rec.falhar_proxima]);
          await tx.query('UPDATE recs SET falhar_proxima = NULL WHERE id_rec = $1', [cobr.idRec]);
        }
        const created = (await this.read(tx, txid, true))!;
        if (inWindow(created, today)) await this.activate(tx, created, now);
        return (await this.read(tx, txid))!;
      });
    } catch (error) {
      const { code, constraint } = error as { code?: string; constraint?: string };
      if (code === UNIQUE_VIOLATION)
        return constraint === 'cobrs_one_per_cycle' ? 'cycle_taken' : 'txid_taken';
      throw error;
    }
  }

  /** `PATCH /cobr/{txid}` `{status: CANCELADA}`: only before the day of its first attempt. */
  async cancel(txid: string, simulatorNow: Date): Promise<StoredCobr | CancelRefusal> {
    return this.db.transaction(async (tx) => {
      const current = await this.lockBoth(tx, txid);
      if (current === undefined) return 'not_found';
      const now = recurrenceNow(simulatorNow, current);
      const today = todayOf(now);
      if (!OPEN.includes(current.status)) return 'not_open';
      if (today >= firstSettlementDay(current)) return 'too_late';
      await this.end(tx, current, 'CANCELADA', now, {
        cancelamento: {
          solicitante: 'USUARIO_RECEBEDOR',
          codigo: 'SLCR',
          descricao: 'Cancelamento solicitado pelo usuário recebedor.',
        },
      });
      return (await this.read(tx, txid))!;
    });
  }

  /** `POST /cobr/{txid}/retentativa/{data}`: a new attempt (NTAG) on a future day, as PERMITE_3R_7D allows. */
  async retry(txid: string, data: string, simulatorNow: Date): Promise<StoredCobr | RetryRefusal> {
    return this.db.transaction(async (tx) => {
      const current = await this.lockBoth(tx, txid);
      if (current === undefined) return 'not_found';
      const now = recurrenceNow(simulatorNow, current);
      const today = todayOf(now);
      if (current.status !== 'ATIVA') return 'not_active';
      if (current.politicaRetentativa !== 'PERMITE_3R_7D') return 'policy';
      if (current.tentativas.some((tentativa) => PENDING.includes(tentativa.status))) return 'pending';
      if (data <= today) return 'not_future';
      if (dayOf(data)! > dayOf(current.dataDeVencimento)! + RETRY_WINDOW_DAYS) return 'too_late';
      if (current.tentativas.filter((tentativa) => tentativa.tipo !== 'AGND').length >= MAX_RETRIES)
        return 'too_many';
      await this.write(
        tx,
        current,
        { tentativas: [...current.tentativas, scheduled(data, 'NTAG', this.mintEndToEndId(now), now)] },
        now,
      );
      return (await this.read(tx, txid))!;
    });
  }

  /** The sandbox payer's bank fails the cycle's next attempt with `codigo` (kept in the books until it does). */
  async failNext(txid: string, codigo: string): Promise<StoredCobr | 'not_found' | 'not_open'> {
    return this.db.transaction(async (tx) => {
      const current = await this.lockBoth(tx, txid);
      if (current === undefined) return 'not_found';
      if (!OPEN.includes(current.status)) return 'not_open';
      await tx.query('UPDATE cobrs SET falhar_proxima = $2 WHERE txid = $1', [txid, codigo]);
      return (await this.read(tx, txid))!;
    });
  }

  /**
   * What the clock made due, each cycle by its recurrence's clock (the simulator's `now` moved by its offset), only
   * `idRec`'s when given: cycles entering their scheduling window are sent (ATIVA), the
   * attempts of the day are debited (PAGA and the cycle CONCLUIDA with its Pix, or REJEITADA as the sandbox was told),
   * cycles whose recurrence ended are cancelled, and cycles left without an attempt past the retry window expire.
   */
  async runDue(pixKey: string, now: Date, idRec?: string): Promise<CobrEvent[]> {
    // The account's own (books shared by two simulators: each runs, and tells, its own).
    const rows = (await this.db.query(
      `SELECT txid FROM cobrs WHERE pix_key = $1 AND ($2::text IS NULL OR id_rec = $2)
         AND status IN ('CRIADA', 'ATIVA') ORDER BY data_de_vencimento, txid`,
      [pixKey, idRec ?? null],
    )) as Array<{ txid: string }>;
    const events: CobrEvent[] = [];
    for (const { txid } of rows) {
      // Every step that fell due (sent, then debited, then expired...), not one per sweep: a clock moved past a
      // cycle's sending and its day debits it in the same move. Each cycle on its own: one that fails is logged and
      // left for the next sweep, and the others go on.
      for (let steps = 0; steps < MAX_STEPS_PER_SWEEP; steps += 1) {
        const event = await this.db
          .transaction((tx) => this.step(tx, txid, now))
          .catch((err: unknown) => {
            this.logger?.error({ err, txid }, 'cycle step failed');
            return undefined;
          });
        if (event === undefined) break;
        events.push(event);
      }
    }
    return events;
  }

  async list(filter: {
    pixKey: string;
    inicio: Date;
    fim: Date;
    idRec?: string;
    cpf?: string;
    cnpj?: string;
    status?: string;
    convenio?: string;
    page: number;
    perPage: number;
  }): Promise<{ cobrs: StoredCobr[]; total: number }> {
    const conditions = new ListConditions(
      ['c.pix_key = $1', 'c.criacao BETWEEN $2 AND $3'],
      [filter.pixKey, filter.inicio, filter.fim],
    )
      .add('c.id_rec = ?', filter.idRec)
      .add('r.devedor_cpf = ?', filter.cpf)
      .add('r.devedor_cnpj = ?', filter.cnpj)
      .add('c.status = ?', filter.status)
      .add('r.convenio = ?', filter.convenio);
    const { rows, total } = await this.page<{ txid: string }>(
      'c.txid',
      'FROM cobrs c JOIN recs r ON r.id_rec = c.id_rec',
      conditions,
      'c.criacao, c.txid',
      filter.page,
      filter.perPage,
    );
    const cobrs = await Promise.all(rows.map((row) => this.get(row.txid)));
    return { cobrs: cobrs.filter((cobr): cobr is StoredCobr => cobr !== undefined), total };
  }

  /** One cycle's due work, under the locks of its recurrence and itself. */
  private async step(tx: EntityManager, txid: string, simulatorNow: Date): Promise<CobrEvent | undefined> {
    const current = await this.lockBoth(tx, txid);
    if (current === undefined || !OPEN.includes(current.status)) return undefined;
    const now = recurrenceNow(simulatorNow, current);
    const today = todayOf(now);
    const [rec] = (await tx.query('SELECT status FROM recs WHERE id_rec = $1', [current.idRec])) as Array<{
      status: string;
    }>;
    // The recurrence ended (the payer or the receiver cancelled it): nothing of it is debited any more.
    if (rec?.status !== 'APROVADA') {
      await this.end(tx, current, 'CANCELADA', now, {
        cancelamento: {
          solicitante: 'PSP_RECEBEDOR',
          codigo: 'CCLD',
          descricao: `Recorrência ${rec?.status ?? 'inexistente'}: cobrança cancelada.`,
        },
      });
      return { cobr: (await this.read(tx, txid))! };
    }
    if (current.status === 'CRIADA') {
      if (!inWindow(current, today)) return undefined;
      await this.activate(tx, current, now);
      return { cobr: (await this.read(tx, txid))! };
    }
    const due = current.tentativas.findIndex(
      (tentativa) => tentativa.status === 'AGENDADA' && tentativa.dataLiquidacao <= today,
    );
    if (due >= 0) return this.debit(tx, current, due, now, simulatorNow);
    const pending = current.tentativas.some((tentativa) => PENDING.includes(tentativa.status));
    const retryWindowOver = dayOf(today)! > dayOf(current.dataDeVencimento)! + RETRY_WINDOW_DAYS;
    if (!pending && retryWindowOver) {
      await this.end(tx, current, 'EXPIRADA', now);
      return { cobr: (await this.read(tx, txid))! };
    }
    return undefined;
  }

  /** The payer's bank settles the attempt: a Pix (its endToEndId minted when scheduled), or the failure asked for. */
  private async debit(
    tx: EntityManager,
    current: StoredCobr,
    index: number,
    now: Date,
    simulatorNow: Date,
  ): Promise<CobrEvent> {
    const tentativa = current.tentativas[index]!;
    const [failure] = (await tx.query('SELECT falhar_proxima FROM cobrs WHERE txid = $1', [
      current.txid,
    ])) as Array<{
      falhar_proxima: string | null;
    }>;
    const codigo = failure?.falhar_proxima ?? null;
    const settle = (status: TentativaStatus, extra: Partial<Tentativa> = {}): Tentativa[] =>
      current.tentativas.map((each, i) =>
        i === index
          ? {
              ...each,
              ...extra,
              status,
              atualizacao: [...each.atualizacao, { status, data: now.toISOString() }],
            }
          : each,
      );
    if (codigo !== null) {
      const tentativas = settle('REJEITADA', {
        rejeicao: { codigo, descricao: FAILURES[codigo] ?? 'Tentativa rejeitada.' },
      });
      await tx.query('UPDATE cobrs SET falhar_proxima = NULL WHERE txid = $1', [current.txid]);
      // Some codes reject the cycle itself (API Pix, `CobRTentativas...rejeicao.codigo`); without retries, nothing is
      // left to collect it: it expires.
      if (REJECTING_CODES.has(codigo)) await this.end(tx, { ...current, tentativas }, 'REJEITADA', now);
      else if (current.politicaRetentativa === 'NAO_PERMITE')
        await this.end(tx, { ...current, tentativas }, 'EXPIRADA', now);
      else await this.write(tx, current, { tentativas }, now);
      return { cobr: (await this.read(tx, current.txid))! };
    }
    const pix: Omit<PixRecebido, 'devolucoes'> = {
      endToEndId: tentativa.endToEndId,
      txid: current.txid,
      valor: toPixAmount(current.valorCentavos),
      chave: current.pixKey,
      horario: now.toISOString(),
    };
    // The Pix tells its day by the recurrence's clock (a test clock), but the money is in the account now, by the
    // simulator's clock: the account's statement (`GET /pix` by period, which a reconciliation of today reads) lists it
    // by when it was booked, not weeks ahead where the recurrence's clock stands.
    await tx.query(
      'INSERT INTO pix (end_to_end_id, txid, valor_centavos, horario, document) VALUES ($1, $2, $3, $4, $5)',
      [pix.endToEndId, current.txid, current.valorCentavos, simulatorNow, JSON.stringify(pix)],
    );
    await this.write(tx, current, { tentativas: settle('PAGA'), status: 'CONCLUIDA' }, now);
    return { cobr: (await this.read(tx, current.txid))!, pix: { ...pix, devolucoes: [] } };
  }

  /** Sent to the payer's bank: ATIVA, its first attempt (on the due date, or the next business day) AGENDADA. */
  private async activate(tx: EntityManager, current: StoredCobr, now: Date): Promise<void> {
    await this.write(
      tx,
      current,
      {
        status: 'ATIVA',
        tentativas: [scheduled(firstSettlementDay(current), 'AGND', this.mintEndToEndId(now), now)],
      },
      now,
    );
  }

  private async end(
    tx: EntityManager,
    current: StoredCobr,
    status: 'CANCELADA' | 'EXPIRADA' | 'REJEITADA',
    now: Date,
    encerramento?: StoredCobr['encerramento'],
  ): Promise<void> {
    const tentativas = current.tentativas.map((tentativa) =>
      PENDING.includes(tentativa.status)
        ? {
            ...tentativa,
            status: status,
            atualizacao: [...tentativa.atualizacao, { status: status, data: now.toISOString() }],
          }
        : tentativa,
    );
    await this.write(tx, current, { status, tentativas, ...(encerramento ? { encerramento } : {}) }, now);
  }

  private async write(
    tx: EntityManager,
    current: StoredCobr,
    change: { status?: CobrStatus; tentativas?: Tentativa[]; encerramento?: StoredCobr['encerramento'] },
    now: Date,
  ): Promise<void> {
    const status = change.status ?? current.status;
    const atualizacao =
      status === current.status
        ? current.atualizacao
        : [...current.atualizacao, { status, data: now.toISOString() }];
    await tx.query(
      'UPDATE cobrs SET status = $2, tentativas = $3, encerramento = $4, atualizacao = $5 WHERE txid = $1',
      [
        current.txid,
        status,
        JSON.stringify(change.tentativas ?? current.tentativas),
        change.encerramento === undefined
          ? current.encerramento === undefined
            ? null
            : JSON.stringify(current.encerramento)
          : JSON.stringify(change.encerramento),
        JSON.stringify(atualizacao),
      ],
    );
  }

  private async lockRec(tx: EntityManager, idRec: string): Promise<RecRow | undefined> {
    const [row] = (await tx.query(
      `SELECT id_rec, pix_key, status, periodicidade, to_char(data_inicial, 'YYYY-MM-DD') AS data_inicial,
         to_char(data_final, 'YYYY-MM-DD') AS data_final, valor_rec_centavos, politica_retentativa,
         clock_offset_ms, falhar_proxima
       FROM recs WHERE id_rec = $1 FOR UPDATE`,
      [idRec],
    )) as RecRow[];
    return row;
  }

  /** The recurrence's row, then the cycle's, locked (the order every writer takes). */
  private async lockBoth(tx: EntityManager, txid: string): Promise<StoredCobr | undefined> {
    const [link] = (await tx.query('SELECT id_rec FROM cobrs WHERE txid = $1', [txid])) as Array<{
      id_rec: string;
    }>;
    if (link === undefined) return undefined;
    await this.lockRec(tx, link.id_rec);
    return this.read(tx, txid, true);
  }

  private async read(tx: EntityManager, txid: string, lock = false): Promise<StoredCobr | undefined> {
    const [row] = (await tx.query(
      `SELECT ${COLUMNS} FROM cobrs c JOIN recs r ON r.id_rec = c.id_rec WHERE c.txid = $1 ${lock ? 'FOR UPDATE OF c' : ''}`,
      [txid],
    )) as CobrRow[];
    if (row === undefined) return undefined;
    const pix = (await tx.query('SELECT document FROM pix WHERE txid = $1', [txid])) as Array<{
      document: Omit<PixRecebido, 'devolucoes'>;
    }>;
    return {
      txid: row.txid,
      idRec: row.id_rec,
      pixKey: row.pix_key,
      status: row.status,
      criacao: row.criacao,
      dataDeVencimento: row.data_de_vencimento,
      ciclo: row.ciclo,
      valorCentavos: Number(row.valor_centavos),
      ajusteDiaUtil: row.ajuste_dia_util,
      ...(row.info_adicional === null ? {} : { infoAdicional: row.info_adicional }),
      ...(row.devedor === null ? {} : { devedor: row.devedor }),
      recebedor: row.recebedor,
      tentativas: row.tentativas,
      ...(row.encerramento === null ? {} : { encerramento: row.encerramento }),
      atualizacao: row.atualizacao,
      politicaRetentativa: row.politica_retentativa,
      clockOffsetMs: Number(row.clock_offset_ms),
      pix: pix.map((each) => ({ ...each.document, devolucoes: [] })),
    };
  }
}

/** The attempt's rejection codes that reject the cycle too, as the document lists them. */
const REJECTING_CODES = new Set(['AC05', 'AM09', 'DENC', 'DS27', 'DTED', 'MIDI', 'MSUC', 'NITX', 'RC09']);

/** What the sandbox's failure codes say (API Pix names the codes of the SPI catalogue, not their meaning). */
const FAILURES: Record<string, string> = {
  AM02: 'Saldo insuficiente na conta do usuário pagador.',
};

function scheduled(
  dataLiquidacao: string,
  tipo: Tentativa['tipo'],
  endToEndId: string,
  now: Date,
): Tentativa {
  const data = now.toISOString();
  return {
    dataLiquidacao,
    tipo,
    status: 'AGENDADA',
    endToEndId,
    atualizacao: [
      { status: 'SOLICITADA', data },
      { status: 'AGENDADA', data },
    ],
  };
}

/** The day of the first attempt: the due date, or the next business day when `ajusteDiaUtil` and it is not one. */
export function firstSettlementDay(cobr: Pick<NewCobr, 'dataDeVencimento' | 'ajusteDiaUtil'>): string {
  const due = dayOf(cobr.dataDeVencimento)!;
  return dateOf(cobr.ajusteDiaUtil ? onOrNextBusinessDay(due) : due);
}

function inWindow(cobr: Pick<NewCobr, 'dataDeVencimento'>, today: string): boolean {
  return dayOf(cobr.dataDeVencimento)! - dayOf(today)! <= SCHEDULE_WINDOW_DAYS;
}

/** The recurrence's cycle a due date falls in, counted from its first date by its periodicity. */
export function cycleOf(
  rec: { periodicidade: Periodicidade; data_inicial: string },
  dataDeVencimento: string,
): number {
  if (rec.periodicidade === 'SEMANAL')
    return Math.floor((dayOf(dataDeVencimento)! - dayOf(rec.data_inicial)!) / 7);
  const months = (date: string) => Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7)) - 1;
  return Math.floor((months(dataDeVencimento) - months(rec.data_inicial)) / MONTHS[rec.periodicidade]);
}

/**
 * What keeps a new cycle off its recurrence, on the recurrence's `today`: a due date past, or closer than the 2 days'
 * notice BCB requires; before the recurrence's first date or after its last; another amount than its fixed one
 * (`valorRec`: "o valor dos pagamentos for fixo"). `valorMinimoRecebedor` is no bound on a cycle: it is the floor of
 * the maximum the payer may set, checked by the payer's bank, which the sandbox does not model.
 */
function cycleRefusal(
  rec: Pick<RecRow, 'data_inicial' | 'data_final' | 'valor_rec_centavos'>,
  cobr: Pick<NewCobr, 'dataDeVencimento' | 'valorCentavos'>,
  today: string,
): CobrRefusal | undefined {
  if (cobr.dataDeVencimento < today) return 'before_today';
  if (dayOf(cobr.dataDeVencimento)! - dayOf(today)! < MIN_NOTICE_DAYS) return 'too_close';
  if (cobr.dataDeVencimento < rec.data_inicial) return 'before_first';
  if (rec.data_final !== null && cobr.dataDeVencimento > rec.data_final) return 'after_last';
  if (rec.valor_rec_centavos !== null && Number(rec.valor_rec_centavos) !== cobr.valorCentavos)
    return 'not_fixed_amount';
  return undefined;
}
