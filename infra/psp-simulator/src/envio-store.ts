import { randomBytes } from 'node:crypto';
import { type EntityManager } from 'typeorm';
import { Books, UNIQUE_VIOLATION } from './books';
import { type EnvioFailure } from './envio-rules';

export type EnvioStatus = 'EM_PROCESSAMENTO' | 'REALIZADO' | 'NAO_REALIZADO';

/** Who receives an envio: a Pix key (with the holder's document to check, when given) or bank account data. */
export interface Favorecido {
  chave?: string;
  cpf?: string;
  cnpj?: string;
  contaBanco?: Record<string, string>;
}

export interface StoredEnvio {
  idEnvio: string;
  endToEndId: string;
  /** The sending account's key (`pagador.chave`). */
  pagadorChave: string;
  valorCentavos: number;
  infoPagador?: string;
  favorecido: Favorecido;
  status: EnvioStatus;
  erro?: EnvioFailure;
  solicitacao: Date;
  liquidacao?: Date;
  settlesAt: Date;
  /** When the payer key's webhook accepted the send's callback (owed until then). */
  notifiedAt?: Date;
  /** Callback attempts made so far. */
  callbackAttempts: number;
}

export interface NewEnvio {
  idEnvio: string;
  pagadorChave: string;
  valorCentavos: number;
  infoPagador?: string;
  favorecido: Favorecido;
  /**
   * The failure a sandbox rule plans for it, claimed only once the envio passed every check and is being recorded
   * (released if it is not recorded after all), applied when it settles.
   */
  claimFailure?: () => { failure: EnvioFailure; release: () => void } | undefined;
}

/** Why an envio is refused at once: its idEnvio names another one, or the account cannot cover it. */
export type EnvioRefusal = 'id_envio_taken' | 'insufficient_balance';

interface EnvioRow {
  id_envio: string;
  end_to_end_id: string;
  pagador_chave: string;
  valor_centavos: string;
  info_pagador: string | null;
  favorecido: Favorecido;
  status: EnvioStatus;
  erro: EnvioFailure | null;
  solicitacao: Date;
  liquidacao: Date | null;
  settles_at: Date;
  notified_at: Date | null;
  callback_attempts: number;
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const COLUMNS = `id_envio, end_to_end_id, pagador_chave, valor_centavos, info_pagador, favorecido, status, erro,
  solicitacao, liquidacao, settles_at, notified_at, callback_attempts`;

/**
 * The sending side of the simulated account: the Pix it sends and the balance they draw on. The balance is what the
 * books say, never a counter kept apart: every Pix received into the account's cobs, less every devolução and every
 * envio not refused (an envio leaves the balance when accepted and comes back if it ends NAO_REALIZADO). Envios of one
 * account queue on its row, so two racing ones never spend the same money.
 */
export class EnvioStore extends Books {
  constructor(private readonly ispb: string) {
    super();
  }

  /** The account's balance in centavos (Efí `GET /v2/gn/saldo`). */
  balance(chave: string): Promise<number> {
    return this.balanceIn(this.db.manager, chave);
  }

  /**
   * The PSP takes a tariff from the account (sandbox: its console charging it): the balance is that much lower at
   * once, queued on the account's row with the envios, so a send racing it is decided against what it left.
   */
  async chargeTariff(
    chave: string,
    valorCentavos: number,
    descricao: string | null,
    now: Date,
  ): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query('SELECT pix_key FROM accounts WHERE pix_key = $1 FOR UPDATE', [chave]);
      await tx.query(
        `INSERT INTO tarifas (chave, valor_centavos, descricao, cobrada_em) VALUES ($1, $2, $3, $4)`,
        [chave, valorCentavos, descricao, now],
      );
    });
  }

  /** A new envio in processing, or why it is refused. A repeated idEnvio is refused whatever it carries. */
  async request(input: NewEnvio, now: Date, settlesAt: Date): Promise<StoredEnvio | EnvioRefusal> {
    let claimed: { release: () => void } | undefined;
    try {
      return await this.db.transaction(async (tx) => {
        await tx.query('SELECT pix_key FROM accounts WHERE pix_key = $1 FOR UPDATE', [input.pagadorChave]);
        const [taken] = (await tx.query('SELECT 1 FROM envios WHERE id_envio = $1', [
          input.idEnvio,
        ])) as unknown[];
        if (taken !== undefined) return 'id_envio_taken';
        if (input.valorCentavos > (await this.balanceIn(tx, input.pagadorChave)))
          return 'insufficient_balance';
        const planned = input.claimFailure?.();
        claimed = planned;
        await tx.query(
          `INSERT INTO envios (id_envio, end_to_end_id, pagador_chave, valor_centavos, info_pagador, favorecido,
             status, planned_failure, solicitacao, settles_at)
           VALUES ($1, $2, $3, $4, $5, $6, 'EM_PROCESSAMENTO', $7, $8, $9)`,
          [
            input.idEnvio,
            this.endToEndId(now),
            input.pagadorChave,
            input.valorCentavos,
            input.infoPagador ?? null,
            JSON.stringify(input.favorecido),
            planned === undefined ? null : JSON.stringify(planned.failure),
            now,
            settlesAt,
          ],
        );
        return (await this.read(tx, 'id_envio = $1', input.idEnvio))!;
      });
    } catch (error) {
      // Not recorded: a rule it claimed stays armed for the next send.
      claimed?.release();
      if ((error as { code?: string }).code === UNIQUE_VIOLATION) return 'id_envio_taken';
      throw error;
    }
  }

  /**
   * Settles an envio still in processing: REALIZADO, or NAO_REALIZADO with the failure planned for it. Answers the
   * settled envio, or nothing when it was settled already (another pass, before a restart).
   */
  async settle(idEnvio: string, now: Date): Promise<StoredEnvio | undefined> {
    const [, count] = (await this.db.query(
      `UPDATE envios SET
         status = CASE WHEN planned_failure IS NULL THEN 'REALIZADO' ELSE 'NAO_REALIZADO' END,
         erro = planned_failure,
         liquidacao = CASE WHEN planned_failure IS NULL THEN $2::timestamptz END
       WHERE id_envio = $1 AND status = 'EM_PROCESSAMENTO'`,
      [idEnvio, now],
    )) as [unknown, number];
    return count === 0 ? undefined : this.byIdEnvio(idEnvio);
  }

  byIdEnvio(idEnvio: string): Promise<StoredEnvio | undefined> {
    return this.read(this.db.manager, 'id_envio = $1', idEnvio);
  }

  byEndToEndId(endToEndId: string): Promise<StoredEnvio | undefined> {
    return this.read(this.db.manager, 'end_to_end_id = $1', endToEndId);
  }

  /**
   * The envios of `chave` asked for in [inicio, fim] (`solicitacao`), oldest first, a page of them (`page` from 0),
   * and how many there are in all.
   */
  async listSent(
    chave: string,
    inicio: Date,
    fim: Date,
    page: number,
    perPage: number,
  ): Promise<{ envios: StoredEnvio[]; total: number }> {
    const [{ total }] = (await this.db.query(
      `SELECT count(*)::int AS total FROM envios WHERE pagador_chave = $1 AND solicitacao BETWEEN $2 AND $3`,
      [chave, inicio, fim],
    )) as [{ total: number }];
    const rows = (await this.db.query(
      `SELECT ${COLUMNS} FROM envios WHERE pagador_chave = $1 AND solicitacao BETWEEN $2 AND $3
        ORDER BY solicitacao, id_envio LIMIT $4 OFFSET $5`,
      [chave, inicio, fim, perPage, page * perPage],
    )) as EnvioRow[];
    return { envios: rows.map((row) => envioOf(row)), total };
  }

  /** The envios still in processing: what a restart settles again. */
  async inProcessing(): Promise<Array<{ idEnvio: string; settlesAt: Date }>> {
    const rows = (await this.db.query(
      `SELECT id_envio, settles_at FROM envios WHERE status = 'EM_PROCESSAMENTO'`,
    )) as Array<{ id_envio: string; settles_at: Date }>;
    return rows.map((row) => ({ idEnvio: row.id_envio, settlesAt: row.settles_at }));
  }

  /** The settled envios of `chave` whose callback is still owed (not accepted yet), oldest first. */
  async callbacksOwed(chave: string): Promise<string[]> {
    const rows = (await this.db.query(
      `SELECT id_envio FROM envios
        WHERE pagador_chave = $1 AND status <> 'EM_PROCESSAMENTO' AND notified_at IS NULL
        ORDER BY solicitacao`,
      [chave],
    )) as Array<{ id_envio: string }>;
    return rows.map((row) => row.id_envio);
  }

  /** Records one callback attempt: accepted (the callback is no longer owed) or not. */
  async recordCallbackAttempt(idEnvio: string, accepted: boolean, now: Date): Promise<void> {
    await this.db.query(
      `UPDATE envios SET callback_attempts = callback_attempts + 1,
         notified_at = CASE WHEN $2 THEN $3::timestamptz END
       WHERE id_envio = $1 AND notified_at IS NULL`,
      [idEnvio, accepted, now],
    );
  }

  private balanceIn(tx: EntityManager, chave: string): Promise<number> {
    return accountBalance(tx, chave);
  }

  private async read(tx: EntityManager, where: string, id: string): Promise<StoredEnvio | undefined> {
    const [row] = (await tx.query(`SELECT ${COLUMNS} FROM envios WHERE ${where}`, [id])) as EnvioRow[];
    return row === undefined ? undefined : envioOf(row);
  }

  /** `E` + ISPB (8) + yyyyMMddHHmm (UTC) + 11 random alphanumerics, as SPI mints an endToEndId. */
  private endToEndId(now: Date): string {
    const stamp = now.toISOString().replace(/\D/g, '').slice(0, 12);
    const suffix = Array.from(randomBytes(11), (byte) => ALPHANUMERIC[byte % ALPHANUMERIC.length]).join('');
    return `E${this.ispb}${stamp}${suffix}`;
  }
}

function envioOf(row: EnvioRow): StoredEnvio {
  return {
    idEnvio: row.id_envio,
    endToEndId: row.end_to_end_id,
    pagadorChave: row.pagador_chave,
    valorCentavos: Number(row.valor_centavos),
    ...(row.info_pagador === null ? {} : { infoPagador: row.info_pagador }),
    favorecido: row.favorecido,
    status: row.status,
    ...(row.erro === null ? {} : { erro: row.erro }),
    solicitacao: row.solicitacao,
    ...(row.liquidacao === null ? {} : { liquidacao: row.liquidacao }),
    settlesAt: row.settles_at,
    ...(row.notified_at === null ? {} : { notifiedAt: row.notified_at }),
    callbackAttempts: row.callback_attempts,
  };
}

/**
 * The balance of the account of `chave`, in centavos, from the books: every Pix received into its charges (cobs and
 * cobvs, and its Pix Automático cycles), less every devolução and every envio not refused (a devolução the balance
 * could not cover never leaves it), less the tariffs the PSP took.
 */
export async function accountBalance(tx: EntityManager, chave: string): Promise<number> {
  const [row] = (await tx.query(
    `WITH charges AS (SELECT txid FROM cobs WHERE chave = $1 UNION ALL SELECT txid FROM cobrs WHERE pix_key = $1)
     SELECT
         (SELECT coalesce(sum(p.valor_centavos), 0) FROM pix p WHERE p.txid IN (SELECT txid FROM charges))
         - (SELECT coalesce(sum(d.valor_centavos), 0) FROM devolucoes d JOIN pix p ON p.end_to_end_id = d.end_to_end_id
              WHERE p.txid IN (SELECT txid FROM charges) AND d.status <> 'NAO_REALIZADO' AND d.planned_refusal IS NULL)
         - (SELECT coalesce(sum(e.valor_centavos), 0) FROM envios e
              WHERE e.pagador_chave = $1 AND e.status <> 'NAO_REALIZADO')
         - (SELECT coalesce(sum(t.valor_centavos), 0) FROM tarifas t WHERE t.chave = $1) AS centavos`,
    [chave],
  )) as Array<{ centavos: string }>;
  return Number(row!.centavos);
}
