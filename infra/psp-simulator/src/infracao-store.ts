import { randomUUID } from 'node:crypto';
import { Books } from './books';

export type InfracaoStatus = 'ABERTA' | 'EM_DEFESA' | 'ACEITA' | 'REJEITADA';

/** An Efí MED infraction as the simulator keeps it. */
export interface StoredInfracao {
  idInfracao: string;
  chave: string;
  endToEndId: string;
  devolucaoId: string;
  valorCentavos: number;
  status: InfracaoStatus;
  analise?: string;
  justificativa?: string;
  criadoEm: Date;
  defesaEm?: Date;
  finalizadoEm?: Date;
}

/** Why a defence was not taken: no such infraction, or one that no longer takes a defence. */
export type DefesaRefusal = 'not_found' | 'not_open';

interface InfracaoRow {
  id_infracao: string;
  chave: string;
  end_to_end_id: string;
  devolucao_id: string;
  valor_centavos: string;
  status: InfracaoStatus;
  analise: string | null;
  justificativa: string | null;
  criado_em: Date;
  defesa_em: Date | null;
  finalizado_em: Date | null;
}

const COLUMNS =
  'id_infracao, chave, end_to_end_id, devolucao_id, valor_centavos, status, analise, justificativa, criado_em, ' +
  'defesa_em, finalizado_em';

/** The MED infractions of the account (Efí mode): raised with each MED, defended by the receiver, ended with the MED. */
export class InfracaoStore extends Books {
  /** The infraction of a MED devolução, opened the first time (a replayed MED meets the one it opened). */
  async raise(
    med: { chave: string; endToEndId: string; devolucaoId: string; valorCentavos: number },
    now: Date,
  ): Promise<void> {
    await this.db.query(
      `INSERT INTO infracoes (id_infracao, chave, end_to_end_id, devolucao_id, valor_centavos, status, criado_em)
       VALUES ($1, $2, $3, $4, $5, 'ABERTA', $6) ON CONFLICT (end_to_end_id, devolucao_id) DO NOTHING`,
      [randomUUID(), med.chave, med.endToEndId, med.devolucaoId, med.valorCentavos, now],
    );
  }

  /** The MED ended: its infraction, defended or not, is ACEITA (money returned) or REJEITADA. */
  async end(endToEndId: string, devolucaoId: string, returned: boolean, now: Date): Promise<void> {
    await this.db.query(
      `UPDATE infracoes SET status = $3, finalizado_em = $4
        WHERE end_to_end_id = $1 AND devolucao_id = $2 AND status IN ('ABERTA', 'EM_DEFESA')`,
      [endToEndId, devolucaoId, returned ? 'ACEITA' : 'REJEITADA', now],
    );
  }

  /** The account's infractions opened in the period, oldest first, a page at a time, and how many there are. */
  async list(
    chave: string,
    inicio: Date,
    fim: Date,
    page: number,
    size: number,
  ): Promise<{ infracoes: StoredInfracao[]; total: number }> {
    const rows: Array<InfracaoRow & { total: string }> = await this.db.query(
      `SELECT ${COLUMNS}, count(*) OVER () AS total FROM infracoes
        WHERE chave = $1 AND criado_em BETWEEN $2 AND $3
        ORDER BY criado_em, id_infracao LIMIT $4 OFFSET $5`,
      [chave, inicio, fim, size, page * size],
    );
    if (rows.length > 0) return { infracoes: rows.map(toInfracao), total: Number(rows[0]!.total) };
    // A page past the last: the count alone.
    const counted: Array<{ total: string }> = await this.db.query(
      'SELECT count(*) AS total FROM infracoes WHERE chave = $1 AND criado_em BETWEEN $2 AND $3',
      [chave, inicio, fim],
    );
    return { infracoes: [], total: Number(counted[0]?.total ?? 0) };
  }

  /** Takes the receiver's defence of an ABERTA infraction of the account, once: it is EM_DEFESA after. */
  async defend(
    chave: string,
    idInfracao: string,
    defesa: { analise: string; justificativa: string },
    now: Date,
  ): Promise<StoredInfracao | DefesaRefusal> {
    const updated: InfracaoRow[] = await this.db.query(
      // As a CTE, so the driver answers the rows alone (an UPDATE's own answer comes with its count).
      `WITH defended AS (
         UPDATE infracoes SET status = 'EM_DEFESA', analise = $3, justificativa = $4, defesa_em = $5
          WHERE chave = $1 AND id_infracao = $2 AND status = 'ABERTA' RETURNING ${COLUMNS})
       SELECT * FROM defended`,
      [chave, idInfracao, defesa.analise, defesa.justificativa, now],
    );
    if (updated[0]) return toInfracao(updated[0]);
    const found: unknown[] = await this.db.query(
      'SELECT 1 FROM infracoes WHERE chave = $1 AND id_infracao = $2',
      [chave, idInfracao],
    );
    return found.length > 0 ? 'not_open' : 'not_found';
  }
}

function toInfracao(row: InfracaoRow): StoredInfracao {
  return {
    idInfracao: row.id_infracao,
    chave: row.chave,
    endToEndId: row.end_to_end_id,
    devolucaoId: row.devolucao_id,
    valorCentavos: Number(row.valor_centavos),
    status: row.status,
    ...(row.analise === null ? {} : { analise: row.analise }),
    ...(row.justificativa === null ? {} : { justificativa: row.justificativa }),
    criadoEm: row.criado_em,
    ...(row.defesa_em === null ? {} : { defesaEm: row.defesa_em }),
    ...(row.finalizado_em === null ? {} : { finalizadoEm: row.finalizado_em }),
  };
}
