import { randomBytes } from 'node:crypto';
import { type EntityManager } from 'typeorm';
import { BooksWithWebhook, ListConditions, UNIQUE_VIOLATION } from './books';
import { toPixAmount } from './cob-store';
import { recurrenceNow, todayOf } from './clock';

export type RecStatus = 'CRIADA' | 'APROVADA' | 'REJEITADA' | 'EXPIRADA' | 'CANCELADA';
export type SolicRecStatus =
  'CRIADA' | 'ENVIADA' | 'RECEBIDA' | 'ACEITA' | 'REJEITADA' | 'EXPIRADA' | 'CANCELADA';
export type Periodicidade = 'SEMANAL' | 'MENSAL' | 'TRIMESTRAL' | 'SEMESTRAL' | 'ANUAL';
export type PoliticaRetentativa = 'NAO_PERMITE' | 'PERMITE_3R_7D';
export type TipoJornada = 'JORNADA_1' | 'JORNADA_2' | 'JORNADA_3' | 'JORNADA_4' | 'AGUARDANDO_DEFINICAO';

/** API Pix `RecEncerramento.encerramento`: why a recurrence ended, when it was rejected or cancelled. */
export type Encerramento =
  | { rejeicao: { codigo: 'AP13' | 'AP14'; descricao: string } }
  | {
      cancelamento: {
        solicitante: 'PSP_PAGADOR' | 'USUARIO_PAGADOR' | 'PSP_RECEBEDOR' | 'USUARIO_RECEBEDOR';
        codigo: string;
        descricao: string;
      };
    };

/** The payer who authorized the recurrence, as their bank reports them (`DadosPagadorRec.pagador`). */
export interface PagadorRec {
  ispbParticipante: string;
  cpf?: string;
  cnpj?: string;
  codMun?: string;
}

export interface Atualizacao<S> {
  status: S;
  data: string;
}

/** What a `POST /rec` states. */
export interface NewRec {
  politicaRetentativa: PoliticaRetentativa;
  periodicidade: Periodicidade;
  dataInicial: string;
  dataFinal?: string;
  valorRecCentavos?: number;
  valorMinimoCentavos?: number;
  contrato: string;
  objeto?: string;
  devedor: { cpf?: string; cnpj?: string; nome: string };
  convenio?: string;
  txidJornada?: string;
}

/** A recurrence's payload location (`PayloadLocationRecCompleta`). */
export interface RecLocation {
  id: number;
  location: string;
  criacao: Date;
  accessToken: string;
  pixKey: string;
  idRec?: string;
}

export interface StoredRec extends NewRec {
  idRec: string;
  loc?: { id: number; location: string; criacao: string };
  pixKey: string;
  status: RecStatus;
  criacao: Date;
  tipoJornada: TipoJornada;
  pagador?: PagadorRec;
  encerramento?: Encerramento;
  atualizacao: Array<Atualizacao<RecStatus>>;
  /** How far the recurrence's own clock is ahead of the simulator's (sandbox). */
  clockOffsetMs: number;
  /** The failure the sandbox payer's bank keeps for the recurrence's next cycle, not created yet. */
  falharProxima?: string;
}

export interface Destinatario {
  conta: string;
  ispbParticipante: string;
  agencia?: string;
  cpf?: string;
  cnpj?: string;
}

export interface StoredSolicRec {
  idSolicRec: string;
  idRec: string;
  status: SolicRecStatus;
  criacao: Date;
  dataExpiracao: Date;
  destinatario: Destinatario;
  atualizacao: Array<Atualizacao<SolicRecStatus>>;
}

/** A change of a recurrence the PSP makes (PATCH, the payer's bank, the clock). */
export interface RecChange {
  status?: RecStatus;
  devedorNome?: string;
  dataInicial?: string;
  txidJornada?: string;
  tipoJornada?: TipoJornada;
  /** A location of the account's, free or already this recurrence's. */
  locId?: number;
  pagador?: PagadorRec;
  encerramento?: Encerramento;
}

export type RecRefusal = 'not_found' | 'ended' | 'not_created' | LocationRefusal;
export type LocationRefusal = 'no_location' | 'location_taken';
export type SolicRecRefusal = 'rec_not_found' | 'rec_not_created' | 'in_flight';
export type AnswerRefusal = 'not_found' | 'not_in_flight' | 'rec_not_created';

export interface RecListFilter {
  pixKey: string;
  inicio: Date;
  fim: Date;
  cpf?: string;
  cnpj?: string;
  status?: string;
  convenio?: string;
  locationPresente?: boolean;
  page: number;
  perPage: number;
}

const IN_FLIGHT: SolicRecStatus[] = ['CRIADA', 'ENVIADA', 'RECEBIDA'];
const ENDED: RecStatus[] = ['REJEITADA', 'EXPIRADA', 'CANCELADA'];
const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

interface RecRow {
  id_rec: string;
  pix_key: string;
  status: RecStatus;
  criacao: Date;
  politica_retentativa: PoliticaRetentativa;
  periodicidade: Periodicidade;
  data_inicial: string;
  data_final: string | null;
  valor_rec_centavos: string | null;
  valor_minimo_centavos: string | null;
  contrato: string;
  objeto: string | null;
  devedor_cpf: string | null;
  devedor_cnpj: string | null;
  devedor_nome: string;
  convenio: string | null;
  tipo_jornada: TipoJornada;
  txid_jornada: string | null;
  pagador: PagadorRec | null;
  encerramento: Encerramento | null;
  atualizacao: Array<Atualizacao<RecStatus>>;
  loc: { id: number; location: string; criacao: string } | null;
  clock_offset_ms: string;
  falhar_proxima: string | null;
}

interface SolicRecRow {
  id_solic_rec: string;
  id_rec: string;
  status: SolicRecStatus;
  criacao: Date;
  data_expiracao: Date;
  destinatario: Destinatario;
  atualizacao: Array<Atualizacao<SolicRecStatus>>;
}

const REC_COLUMNS = `id_rec, pix_key, status, criacao, politica_retentativa, periodicidade,
  to_char(data_inicial, 'YYYY-MM-DD') AS data_inicial, to_char(data_final, 'YYYY-MM-DD') AS data_final,
  valor_rec_centavos, valor_minimo_centavos, contrato, objeto, devedor_cpf, devedor_cnpj, devedor_nome, convenio,
  tipo_jornada, txid_jornada, pagador, encerramento, atualizacao, clock_offset_ms, falhar_proxima,
  (SELECT json_build_object('id', l.id, 'location', l.location, 'criacao', l.criacao) FROM locations_rec l
   WHERE l.id = recs.loc_id) AS loc`;

/**
 * The simulated bank's recurrences (Pix Automático) and the requests for the payer's authorization, each decision
 * taken under a lock on the recurrence's row, so a payer's answer racing the receiver's cancellation ends in one state.
 */
export class RecStore extends BooksWithWebhook {
  /** `ispb`: the 8 characters that name the receiver's agent in the ids it mints (`RecId`, `idSolicRec`). */
  constructor(private readonly ispb: string) {
    super('webhooks_rec');
  }

  async create(
    pixKey: string,
    rec: NewRec,
    now: Date,
    today: string,
    locId?: number,
  ): Promise<StoredRec | LocationRefusal> {
    return this.db
      .transaction(async (tx) => {
        const created = await this.insert(tx, pixKey, rec, now, today);
        if (locId === undefined) return created;
        const linked = await this.link(tx, created.idRec, pixKey, locId);
        // Nothing made: the location named cannot be this recurrence's.
        if (linked !== undefined) throw new LocationTaken(linked);
        return (await this.read(tx, created.idRec))!;
      })
      .catch((error: unknown) => {
        if (error instanceof LocationTaken) return error.refusal;
        throw error;
      });
  }

  private async insert(
    tx: EntityManager,
    pixKey: string,
    rec: NewRec,
    now: Date,
    today: string,
  ): Promise<StoredRec> {
    const idRec = `R${rec.politicaRetentativa === 'PERMITE_3R_7D' ? 'R' : 'N'}${this.ispb}${today.replace(/-/g, '')}${sequence()}`;
    await tx.query(
      `INSERT INTO recs (id_rec, pix_key, status, criacao, politica_retentativa, periodicidade, data_inicial, data_final,
         valor_rec_centavos, valor_minimo_centavos, contrato, objeto, devedor_cpf, devedor_cnpj, devedor_nome, convenio,
         tipo_jornada, txid_jornada, atualizacao)
       VALUES ($1, $2, 'CRIADA', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, 'AGUARDANDO_DEFINICAO', $16, $17)`,
      [
        idRec,
        pixKey,
        now,
        rec.politicaRetentativa,
        rec.periodicidade,
        rec.dataInicial,
        rec.dataFinal ?? null,
        rec.valorRecCentavos ?? null,
        rec.valorMinimoCentavos ?? null,
        rec.contrato,
        rec.objeto ?? null,
        rec.devedor.cpf ?? null,
        rec.devedor.cnpj ?? null,
        rec.devedor.nome,
        rec.convenio ?? null,
        rec.txidJornada ?? null,
        JSON.stringify([{ status: 'CRIADA', data: now.toISOString() }]),
      ],
    );
    return (await this.read(tx, idRec))!;
  }

  /** Links the recurrence to the account's location `locId` when free (or already its own); else why not. */
  private async link(
    tx: EntityManager,
    idRec: string,
    pixKey: string,
    locId: number,
  ): Promise<LocationRefusal | undefined> {
    if (!Number.isSafeInteger(locId)) return 'no_location';
    const [loc] = (await tx.query(
      `SELECT l.id, r.id_rec FROM locations_rec l LEFT JOIN recs r ON r.loc_id = l.id
       WHERE l.id = $1 AND l.pix_key = $2 FOR UPDATE OF l`,
      [locId, pixKey],
    )) as Array<{ id: string; id_rec: string | null }>;
    if (loc === undefined) return 'no_location';
    if (loc.id_rec !== null && loc.id_rec !== idRec) return 'location_taken';
    try {
      await tx.query('SAVEPOINT link_location');
      await tx.query('UPDATE recs SET loc_id = $2 WHERE id_rec = $1', [idRec, locId]);
      await tx.query('RELEASE SAVEPOINT link_location');
    } catch (error) {
      if ((error as { code?: string }).code !== UNIQUE_VIOLATION) throw error;
      await tx.query('ROLLBACK TO SAVEPOINT link_location');
      return 'location_taken';
    }
    return undefined;
  }

  /** `POST /locrec`: a new location of the account, for a recurrence's payload. */
  async createLocation(pixKey: string, base: string, now: Date): Promise<RecLocation> {
    const accessToken = randomBytes(16).toString('hex');
    const [row] = (await this.db.query(
      `INSERT INTO locations_rec (pix_key, access_token, location, criacao) VALUES ($1, $2, $3, $4) RETURNING id`,
      [pixKey, accessToken, `${base}/rec/${accessToken}`, now],
    )) as Array<{ id: string }>;
    return (await this.getLocation(Number(row!.id)))!;
  }

  async getLocation(id: number): Promise<RecLocation | undefined> {
    if (!Number.isSafeInteger(id)) return undefined;
    const [row] = (await this.db.query(
      `SELECT l.id, l.pix_key, l.access_token, l.location, l.criacao, r.id_rec
       FROM locations_rec l LEFT JOIN recs r ON r.loc_id = l.id WHERE l.id = $1`,
      [id],
    )) as LocationRow[];
    return row && locationOf(row);
  }

  async listLocations(filter: {
    pixKey: string;
    inicio: Date;
    fim: Date;
    idRecPresente?: boolean;
    convenio?: string;
    page: number;
    perPage: number;
  }): Promise<{ locations: RecLocation[]; total: number }> {
    const conditions = new ListConditions(
      ['l.pix_key = $1', 'l.criacao BETWEEN $2 AND $3'],
      [filter.pixKey, filter.inicio, filter.fim],
    );
    if (filter.idRecPresente !== undefined)
      conditions.also(`r.id_rec IS ${filter.idRecPresente ? 'NOT ' : ''}NULL`);
    conditions.add('r.convenio = ?', filter.convenio);
    const { rows, total } = await this.page<LocationRow>(
      'l.id, l.pix_key, l.access_token, l.location, l.criacao, r.id_rec',
      'FROM locations_rec l LEFT JOIN recs r ON r.loc_id = l.id',
      conditions,
      'l.criacao, l.id',
      filter.page,
      filter.perPage,
    );
    return { locations: rows.map(locationOf), total };
  }

  /** `DELETE /locrec/{id}/idRec`: the location no longer serves its recurrence (whose status does not change). */
  async unlinkLocation(id: number): Promise<RecLocation | undefined> {
    return this.db.transaction(async (tx) => {
      const [row] = (await tx.query('SELECT id FROM locations_rec WHERE id = $1 FOR UPDATE', [id])) as Array<{
        id: string;
      }>;
      if (row === undefined) return undefined;
      await tx.query('UPDATE recs SET loc_id = NULL WHERE loc_id = $1', [id]);
      const [after] = (await tx.query(
        `SELECT l.id, l.pix_key, l.access_token, l.location, l.criacao, NULL AS id_rec FROM locations_rec l WHERE l.id = $1`,
        [id],
      )) as LocationRow[];
      return locationOf(after!);
    });
  }

  /**
   * Journey 3: the charge `txid` a recurrence of `pixKey` still CRIADA names was paid: the recurrence APROVADA by
   * JORNADA_3 (its request in flight, if any, answered by that payment is left to expire). Answers it, if any.
   */
  async approveByCharge(
    pixKey: string,
    txid: string,
    now: Date,
    pagadorOf: (rec: StoredRec) => PagadorRec,
  ): Promise<StoredRec | undefined> {
    const [row] = (await this.db.query(
      `SELECT id_rec FROM recs WHERE pix_key = $1 AND txid_jornada = $2 AND status = 'CRIADA' ORDER BY criacao LIMIT 1`,
      [pixKey, txid],
    )) as Array<{ id_rec: string }>;
    if (row === undefined) return undefined;
    return this.db.transaction(async (tx) => {
      const current = await this.read(tx, row.id_rec, true);
      if (current === undefined || current.status !== 'CRIADA' || current.txidJornada !== txid)
        return undefined;
      await this.apply(
        tx,
        current,
        { status: 'APROVADA', tipoJornada: 'JORNADA_3', pagador: pagadorOf(current) },
        now,
      );
      return this.read(tx, row.id_rec);
    });
  }

  /** The recurrence a payload location serves, if any. */
  async getByAccessToken(accessToken: string): Promise<StoredRec | undefined> {
    const [row] = (await this.db.query(
      'SELECT r.id_rec FROM recs r JOIN locations_rec l ON l.id = r.loc_id WHERE l.access_token = $1',
      [accessToken],
    )) as Array<{ id_rec: string }>;
    return row && this.get(row.id_rec);
  }

  get(idRec: string): Promise<StoredRec | undefined> {
    return this.read(this.db.manager, idRec);
  }

  /**
   * A change of the recurrence while it has not ended (`ended`); `onlyWhileCreated` changes (its first date) only
   * while CRIADA (`not_created`). A new status is added to its history; ending it ends its request in flight too
   * (CANCELADA), as nothing is left for the payer to answer.
   */
  async change(
    idRec: string,
    change: RecChange,
    now: Date,
    guard: (current: StoredRec) => RecRefusal | undefined = () => undefined,
  ): Promise<{ rec: StoredRec; changedStatus: boolean } | RecRefusal> {
    return this.db.transaction(async (tx) => {
      const current = await this.read(tx, idRec, true);
      if (current === undefined) return 'not_found';
      if (ENDED.includes(current.status)) return 'ended';
      const refusal = guard(current);
      if (refusal !== undefined) return refusal;
      if (change.locId !== undefined) {
        const linked = await this.link(tx, idRec, current.pixKey, change.locId);
        if (linked !== undefined) return linked;
      }
      const changedStatus = await this.apply(tx, current, change, now);
      return { rec: (await this.read(tx, idRec))!, changedStatus };
    });
  }

  async list(filter: RecListFilter): Promise<{ recs: StoredRec[]; total: number }> {
    const conditions = new ListConditions(
      ['pix_key = $1', 'criacao BETWEEN $2 AND $3'],
      [filter.pixKey, filter.inicio, filter.fim],
    )
      .add('devedor_cpf = ?', filter.cpf)
      .add('devedor_cnpj = ?', filter.cnpj)
      .add('status = ?', filter.status)
      .add('convenio = ?', filter.convenio);
    if (filter.locationPresente !== undefined)
      conditions.also(`loc_id IS ${filter.locationPresente ? 'NOT ' : ''}NULL`);
    const { rows, total } = await this.page<RecRow>(
      REC_COLUMNS,
      'FROM recs',
      conditions,
      'criacao, id_rec',
      filter.page,
      filter.perPage,
    );
    return { recs: rows.map(recOf), total };
  }

  /** The requests made for the recurrence, oldest first. */
  async solicitacoes(idRec: string): Promise<StoredSolicRec[]> {
    const rows = (await this.db.query(
      `SELECT * FROM solicrecs WHERE id_rec = $1 ORDER BY criacao, id_solic_rec`,
      [idRec],
    )) as SolicRecRow[];
    return rows.map(solicRecOf);
  }

  getSolicRec(idSolicRec: string): Promise<StoredSolicRec | undefined> {
    return this.getSolicRecIn(this.db.manager, idSolicRec);
  }

  /** `POST /solicrec`: a request for the payer's authorization of a recurrence of `pixKey` still CRIADA. */
  async createSolicRec(
    pixKey: string,
    idRec: string,
    dataExpiracao: Date,
    destinatario: Destinatario,
    now: Date,
  ): Promise<StoredSolicRec | SolicRecRefusal> {
    try {
      return await this.db.transaction(async (tx) => {
        const rec = await this.read(tx, idRec, true);
        if (rec === undefined || rec.pixKey !== pixKey) return 'rec_not_found';
        if (rec.status !== 'CRIADA') return 'rec_not_created';
        const at = recurrenceNow(now, rec);
        const idSolicRec = `SC${this.ispb}${todayOf(at).replace(/-/g, '')}${sequence()}`;
        await tx.query(
          `INSERT INTO solicrecs (id_solic_rec, id_rec, status, criacao, data_expiracao, destinatario, atualizacao)
           VALUES ($1, $2, 'CRIADA', $3, $4, $5, $6)`,
          [
            idSolicRec,
            idRec,
            at,
            dataExpiracao,
            JSON.stringify(destinatario),
            JSON.stringify([{ status: 'CRIADA', data: at.toISOString() }]),
          ],
        );
        return (await this.getSolicRecIn(tx, idSolicRec))!;
      });
    } catch (error) {
      // Another request in flight for the same recurrence, made by a racing call.
      if ((error as { code?: string }).code === UNIQUE_VIOLATION) return 'in_flight';
      throw error;
    }
  }

  /** The receiver cancels a request still in flight (`PATCH /solicrec`). */
  async cancelSolicRec(
    idSolicRec: string,
    now: Date,
  ): Promise<StoredSolicRec | 'not_found' | 'not_in_flight'> {
    return this.db.transaction(async (tx) => {
      const solicRec = await this.lockSolicRec(tx, idSolicRec);
      if (solicRec === undefined) return 'not_found';
      if (!IN_FLIGHT.includes(solicRec.status)) return 'not_in_flight';
      const rec = (await this.read(tx, solicRec.idRec))!;
      await this.moveSolicRec(tx, solicRec, ['CANCELADA'], recurrenceNow(now, rec));
      return (await this.getSolicRecIn(tx, idSolicRec))!;
    });
  }

  /**
   * The payer's bank answers a request: it reaches the payer (ENVIADA, RECEBIDA, when not yet) who accepts it (the
   * request ACEITA, the recurrence APROVADA for `pagador`, by journey 1) or rejects it (REJEITADA, and so the
   * recurrence, with `rejeicao`). Refused when the request is no longer in flight or the recurrence no longer CRIADA.
   */
  async answer(
    idSolicRec: string,
    outcome:
      | { accept: true; pagador: PagadorRec }
      | { accept: false; rejeicao: { codigo: 'AP13' | 'AP14'; descricao: string } },
    now: Date,
  ): Promise<{ solicRec: StoredSolicRec; rec: StoredRec } | AnswerRefusal> {
    return this.db.transaction(async (tx) => {
      const [link] = (await tx.query('SELECT id_rec FROM solicrecs WHERE id_solic_rec = $1', [
        idSolicRec,
      ])) as Array<{
        id_rec: string;
      }>;
      if (link === undefined) return 'not_found';
      // The recurrence first, then the request: every path locks them in this order.
      const rec = (await this.read(tx, link.id_rec, true))!;
      const solicRec = (await this.lockSolicRec(tx, idSolicRec))!;
      if (!IN_FLIGHT.includes(solicRec.status)) return 'not_in_flight';
      if (rec.status !== 'CRIADA') return 'rec_not_created';
      const steps = (['ENVIADA', 'RECEBIDA'] as SolicRecStatus[]).filter(
        (step) => IN_FLIGHT.indexOf(step) > IN_FLIGHT.indexOf(solicRec.status),
      );
      await this.moveSolicRec(
        tx,
        solicRec,
        [...steps, outcome.accept ? 'ACEITA' : 'REJEITADA'],
        recurrenceNow(now, rec),
      );
      await this.apply(
        tx,
        rec,
        outcome.accept
          ? { status: 'APROVADA', pagador: outcome.pagador, tipoJornada: 'JORNADA_1' }
          : { status: 'REJEITADA', encerramento: { rejeicao: outcome.rejeicao } },
        now,
      );
      return {
        solicRec: (await this.getSolicRecIn(tx, idSolicRec))!,
        rec: (await this.read(tx, rec.idRec))!,
      };
    });
  }

  /**
   * What the clock ended, each recurrence by its own clock (the simulator's `now` moved by its offset): requests in
   * flight past their expiry (EXPIRADA), recurrences still CRIADA whose first payment date has passed without
   * authorization, and approved ones past their last date (EXPIRADA). Only `idRec`'s when given. Answers the
   * recurrences whose status changed.
   */
  async expireDue(pixKey: string, now: Date, idRec?: string): Promise<StoredRec[]> {
    const recNow = `($1::timestamptz + r.clock_offset_ms * interval '1 millisecond')`;
    const expiring = (await this.db.query(
      `SELECT s.id_solic_rec, r.clock_offset_ms FROM solicrecs s JOIN recs r ON r.id_rec = s.id_rec
       WHERE r.pix_key = $2 AND ($3::text IS NULL OR r.id_rec = $3)
         AND s.status IN ('CRIADA', 'ENVIADA', 'RECEBIDA') AND s.data_expiracao <= ${recNow}`,
      [now, pixKey, idRec ?? null],
    )) as Array<{ id_solic_rec: string; clock_offset_ms: string }>;
    for (const { id_solic_rec, clock_offset_ms } of expiring)
      await this.db.transaction(async (tx) => {
        const at = recurrenceNow(now, { clockOffsetMs: Number(clock_offset_ms) });
        const solicRec = await this.lockSolicRec(tx, id_solic_rec);
        if (solicRec && IN_FLIGHT.includes(solicRec.status) && solicRec.dataExpiracao <= at)
          await this.moveSolicRec(tx, solicRec, ['EXPIRADA'], at);
      });
    // A recurrence past its last day ends once its cycles have: the one due on that day (moved to the next business
    // day, or retried for a week) is still collected.
    const recToday = `(${recNow} AT TIME ZONE 'America/Sao_Paulo')::date`;
    const recs = (await this.db.query(
      `SELECT r.id_rec FROM recs r WHERE r.pix_key = $2 AND ($3::text IS NULL OR r.id_rec = $3)
         AND ((r.status = 'CRIADA' AND r.data_inicial < ${recToday})
         OR (r.status = 'APROVADA' AND r.data_final < ${recToday} AND NOT EXISTS (
           SELECT 1 FROM cobrs c WHERE c.id_rec = r.id_rec AND c.status IN ('CRIADA', 'ATIVA'))))`,
      [now, pixKey, idRec ?? null],
    )) as Array<{ id_rec: string }>;
    const ended: StoredRec[] = [];
    for (const { id_rec } of recs) {
      const changed = await this.change(id_rec, { status: 'EXPIRADA' }, now, (current) => {
        const today = todayOf(recurrenceNow(now, current));
        return (current.status === 'CRIADA' && current.dataInicial < today) ||
          (current.status === 'APROVADA' && current.dataFinal !== undefined && current.dataFinal < today)
          ? undefined
          : 'not_created';
      });
      if (typeof changed !== 'string') ended.push(changed.rec);
    }
    return ended;
  }

  /**
   * Moves the recurrence's own clock forward so that, at the simulator's `now`, it reads `to` (never back: a
   * recurrence already past `to` keeps its clock). Answers the recurrence, or undefined when there is none.
   */
  async moveClock(idRec: string, now: Date, to: Date): Promise<StoredRec | undefined> {
    await this.db.query('UPDATE recs SET clock_offset_ms = GREATEST(clock_offset_ms, $2) WHERE id_rec = $1', [
      idRec,
      Math.max(0, to.getTime() - now.getTime()),
    ]);
    return this.get(idRec);
  }

  /**
   * The sandbox payer's bank fails the next attempt of the recurrence's next cycle with `codigo`: its open cycle's
   * (CRIADA or ATIVA, the earliest due) when there is one, else the next cycle created takes it (kept on the
   * recurrence until then). Refused once the recurrence has ended.
   */
  async failNextCycle(idRec: string, codigo: string): Promise<StoredRec | 'not_found' | 'ended'> {
    return this.db.transaction(async (tx) => {
      // The recurrence first, then its cycle: every path locks them in this order.
      const current = await this.read(tx, idRec, true);
      if (current === undefined) return 'not_found';
      if (ENDED.includes(current.status)) return 'ended';
      const [open] = (await tx.query(
        `SELECT txid FROM cobrs WHERE id_rec = $1 AND status IN ('CRIADA', 'ATIVA')
         ORDER BY data_de_vencimento, txid LIMIT 1 FOR UPDATE`,
        [idRec],
      )) as Array<{ txid: string }>;
      if (open !== undefined)
        await tx.query('UPDATE cobrs SET falhar_proxima = $2 WHERE txid = $1', [open.txid, codigo]);
      else await tx.query('UPDATE recs SET falhar_proxima = $2 WHERE id_rec = $1', [idRec, codigo]);
      return (await this.read(tx, idRec))!;
    });
  }

  /** `now`: the simulator's; what is written is dated by the recurrence's own clock. */
  private async apply(
    tx: EntityManager,
    current: StoredRec,
    change: RecChange,
    simulatorNow: Date,
  ): Promise<boolean> {
    const now = recurrenceNow(simulatorNow, current);
    const changedStatus = change.status !== undefined && change.status !== current.status;
    const atualizacao = changedStatus
      ? [...current.atualizacao, { status: change.status!, data: now.toISOString() }]
      : current.atualizacao;
    await tx.query(
      `UPDATE recs SET status = $2, devedor_nome = $3, data_inicial = $4, txid_jornada = $5, tipo_jornada = $6,
         pagador = $7, encerramento = $8, atualizacao = $9 WHERE id_rec = $1`,
      [
        current.idRec,
        change.status ?? current.status,
        change.devedorNome ?? current.devedor.nome,
        change.dataInicial ?? current.dataInicial,
        change.txidJornada ?? current.txidJornada ?? null,
        change.tipoJornada ?? current.tipoJornada,
        jsonOrNull(change.pagador ?? current.pagador),
        jsonOrNull(change.encerramento ?? current.encerramento),
        JSON.stringify(atualizacao),
      ],
    );
    // A recurrence that ended leaves nothing for its request in flight to ask.
    if (changedStatus && ENDED.includes(change.status!)) {
      const [inFlight] = (await tx.query(
        `SELECT id_solic_rec FROM solicrecs WHERE id_rec = $1 AND status IN ('CRIADA', 'ENVIADA', 'RECEBIDA') FOR UPDATE`,
        [current.idRec],
      )) as Array<{ id_solic_rec: string }>;
      if (inFlight !== undefined)
        await this.moveSolicRec(
          tx,
          (await this.getSolicRecIn(tx, inFlight.id_solic_rec))!,
          ['CANCELADA'],
          now,
        );
    }
    return changedStatus;
  }

  private async moveSolicRec(
    tx: EntityManager,
    solicRec: StoredSolicRec,
    steps: SolicRecStatus[],
    now: Date,
  ): Promise<void> {
    let atualizacao = solicRec.atualizacao;
    for (const step of steps) {
      atualizacao = [...atualizacao, { status: step, data: now.toISOString() }];
      await tx.query('UPDATE solicrecs SET status = $2, atualizacao = $3 WHERE id_solic_rec = $1', [
        solicRec.idSolicRec,
        step,
        JSON.stringify(atualizacao),
      ]);
    }
  }

  private async lockSolicRec(tx: EntityManager, idSolicRec: string): Promise<StoredSolicRec | undefined> {
    const [row] = (await tx.query('SELECT * FROM solicrecs WHERE id_solic_rec = $1 FOR UPDATE', [
      idSolicRec,
    ])) as SolicRecRow[];
    return row && solicRecOf(row);
  }

  private async getSolicRecIn(tx: EntityManager, idSolicRec: string): Promise<StoredSolicRec | undefined> {
    const [row] = (await tx.query('SELECT * FROM solicrecs WHERE id_solic_rec = $1', [
      idSolicRec,
    ])) as SolicRecRow[];
    return row && solicRecOf(row);
  }

  private async read(tx: EntityManager, idRec: string, lock = false): Promise<StoredRec | undefined> {
    const [row] = (await tx.query(
      `SELECT ${REC_COLUMNS} FROM recs WHERE id_rec = $1 ${lock ? 'FOR UPDATE' : ''}`,
      [idRec],
    )) as RecRow[];
    return row && recOf(row);
  }
}

interface LocationRow {
  id: string;
  pix_key: string;
  access_token: string;
  location: string;
  criacao: Date;
  id_rec: string | null;
}

function locationOf(row: LocationRow): RecLocation {
  return {
    id: Number(row.id),
    pixKey: row.pix_key,
    accessToken: row.access_token,
    location: row.location,
    criacao: row.criacao,
    ...(row.id_rec === null ? {} : { idRec: row.id_rec }),
  };
}

/** Rolls back a recurrence made for a location it cannot have. */
class LocationTaken extends Error {
  constructor(readonly refusal: LocationRefusal) {
    super(refusal);
  }
}

/** A jsonb value, or SQL NULL (not JSON `null`) for none. */
function jsonOrNull(value: unknown): string | null {
  return value === undefined ? null : JSON.stringify(value);
}

/** 11 alphanumerics, the sequence part of the ids API Pix has the receiver's agent mint. */
function sequence(): string {
  return Array.from(randomBytes(11), (byte) => ALPHANUMERIC[byte % ALPHANUMERIC.length]).join('');
}

function recOf(row: RecRow): StoredRec {
  return {
    idRec: row.id_rec,
    pixKey: row.pix_key,
    status: row.status,
    criacao: row.criacao,
    politicaRetentativa: row.politica_retentativa,
    periodicidade: row.periodicidade,
    dataInicial: row.data_inicial,
    ...(row.data_final === null ? {} : { dataFinal: row.data_final }),
    ...(row.valor_rec_centavos === null ? {} : { valorRecCentavos: Number(row.valor_rec_centavos) }),
    ...(row.valor_minimo_centavos === null ? {} : { valorMinimoCentavos: Number(row.valor_minimo_centavos) }),
    contrato: row.contrato,
    ...(row.objeto === null ? {} : { objeto: row.objeto }),
    devedor: {
      ...(row.devedor_cpf === null ? {} : { cpf: row.devedor_cpf }),
      ...(row.devedor_cnpj === null ? {} : { cnpj: row.devedor_cnpj }),
      nome: row.devedor_nome,
    },
    ...(row.convenio === null ? {} : { convenio: row.convenio }),
    tipoJornada: row.tipo_jornada,
    ...(row.txid_jornada === null ? {} : { txidJornada: row.txid_jornada }),
    ...(row.pagador === null ? {} : { pagador: row.pagador }),
    ...(row.encerramento === null ? {} : { encerramento: row.encerramento }),
    atualizacao: row.atualizacao,
    clockOffsetMs: Number(row.clock_offset_ms),
    ...(row.falhar_proxima === null ? {} : { falharProxima: row.falhar_proxima }),
    ...(row.loc === null
      ? {}
      : {
          loc: {
            id: Number(row.loc.id),
            location: row.loc.location,
            criacao: new Date(row.loc.criacao).toISOString(),
          },
        }),
  };
}

function solicRecOf(row: SolicRecRow): StoredSolicRec {
  return {
    idSolicRec: row.id_solic_rec,
    idRec: row.id_rec,
    status: row.status,
    criacao: row.criacao,
    dataExpiracao: row.data_expiracao,
    destinatario: row.destinatario,
    atualizacao: row.atualizacao,
  };
}

/** The parts of a recurrence every view of it shows (`RecBase`, `RecConfiguracao`). */
export function recBaseView(rec: StoredRec): Record<string, unknown> {
  return {
    idRec: rec.idRec,
    vinculo: {
      ...(rec.objeto === undefined ? {} : { objeto: rec.objeto }),
      contrato: rec.contrato,
      devedor: rec.devedor,
    },
    calendario: {
      dataInicial: rec.dataInicial,
      ...(rec.dataFinal === undefined ? {} : { dataFinal: rec.dataFinal }),
      periodicidade: rec.periodicidade,
    },
    ...(rec.valorRecCentavos === undefined && rec.valorMinimoCentavos === undefined
      ? {}
      : {
          valor: {
            ...(rec.valorRecCentavos === undefined ? {} : { valorRec: toPixAmount(rec.valorRecCentavos) }),
            ...(rec.valorMinimoCentavos === undefined
              ? {}
              : { valorMinimoRecebedor: toPixAmount(rec.valorMinimoCentavos) }),
          },
        }),
    politicaRetentativa: rec.politicaRetentativa,
  };
}
