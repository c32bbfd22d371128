import { randomBytes, randomUUID } from 'node:crypto';

export type CobStatus = 'ATIVA' | 'CONCLUIDA' | 'REMOVIDA_PELO_USUARIO_RECEBEDOR' | 'REMOVIDA_PELO_PSP';
export type DevolucaoStatus = 'EM_PROCESSAMENTO' | 'DEVOLVIDO' | 'NAO_REALIZADO';

/** API Pix `Devolucao`: a refund of (part of) a received Pix, asked for by the receiver with its own `id`. */
export interface Devolucao {
  id: string;
  /** ReturnIdentification of the pacs.004 that carries it. */
  rtrId: string;
  valor: string;
  natureza: 'ORIGINAL';
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
  /** The cob currently served at this location, if any. */
  txid?: string;
}

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
  pix: PixRecebido[];
}

export interface NewCob {
  txid: string;
  expiracao: number;
  valorOriginal: string;
  modalidadeAlteracao: 0 | 1;
  chave: string;
  solicitacaoPagador?: string;
}

/** What a revision may change; `loc` is not part of the cob's history (API Pix `Revisao`). */
export type CobChange = Partial<
  Pick<StoredCob, 'expiracao' | 'valorOriginal' | 'modalidadeAlteracao' | 'solicitacaoPagador' | 'status'>
>;

/** Why a payer's Pix is refused (the receiving PSP answers the pacs.008 with a rejection). */
export type PaymentRefusal = 'not_active' | 'expired' | 'fixed_amount';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** The simulated bank's ledger of immediate charges; in memory because it stands in for someone else's system. */
export class CobStore {
  private readonly byTxid = new Map<string, StoredCob>();
  private readonly pixByEndToEndId = new Map<string, PixRecebido>();
  private readonly locationById = new Map<number, StoredLocation>();
  private readonly locationByToken = new Map<string, StoredLocation>();
  private lastLocId = 0;

  constructor(private readonly ispb: string) {}

  get(txid: string): StoredCob | undefined {
    return this.byTxid.get(txid);
  }

  getPix(endToEndId: string): PixRecebido | undefined {
    return this.pixByEndToEndId.get(endToEndId);
  }

  getLocation(id: number): StoredLocation | undefined {
    return this.locationById.get(id);
  }

  /** The cob a payer's bank finds at a location URL; none once the cob has moved to another location. */
  getByAccessToken(accessToken: string): StoredCob | undefined {
    const txid = this.locationByToken.get(accessToken)?.txid;
    return txid === undefined ? undefined : this.byTxid.get(txid);
  }

  /** `POST /loc`: a new location, not yet linked to any cob. */
  createLocation(locationBase: string, now: Date): StoredLocation {
    const accessToken = randomUUID().replace(/-/g, '');
    const loc: StoredLocation = {
      id: ++this.lastLocId,
      accessToken,
      location: `${locationBase}/${accessToken}`,
      criacao: now,
    };
    this.locationById.set(loc.id, loc);
    this.locationByToken.set(accessToken, loc);
    return loc;
  }

  create(input: NewCob, locationBase: string, now: Date): StoredCob {
    const loc = this.createLocation(locationBase, now);
    const cob: StoredCob = { ...input, revisao: 0, status: 'ATIVA', criacao: now, loc, pix: [] };
    loc.txid = cob.txid;
    this.byTxid.set(cob.txid, cob);
    return cob;
  }

  /**
   * Applies a revision. `revisao` grows by one only when a field of the cob really changes; moving it to another
   * location alone does not count (API Pix `Revisao`), and the old location stops serving it.
   */
  revise(cob: StoredCob, change: CobChange, loc?: StoredLocation): StoredCob {
    if (loc !== undefined && loc !== cob.loc) {
      delete cob.loc.txid;
      loc.txid = cob.txid;
      cob.loc = loc;
    }
    const changed = Object.entries(change).filter(
      ([key, value]) => value !== undefined && value !== cob[key as keyof CobChange],
    );
    if (changed.length > 0) {
      Object.assign(cob, Object.fromEntries(changed));
      cob.revisao += 1;
    }
    return cob;
  }

  /**
   * A payer's Pix into the cob, as a real receiving PSP takes it: only while the cob is ATIVA and within its window,
   * of exactly `valor.original` unless `modalidadeAlteracao` is 1, and once (the cob concludes).
   */
  receive(
    cob: StoredCob,
    valorCentavos: number,
    now: Date,
    payer: PayerReport = {},
  ): PixRecebido | PaymentRefusal {
    if (cob.status !== 'ATIVA') return 'not_active';
    if (this.isExpired(cob, now)) return 'expired';
    if (cob.modalidadeAlteracao === 0 && valorCentavos !== toCentavos(cob.valorOriginal))
      return 'fixed_amount';
    const pix: PixRecebido = {
      endToEndId: this.identifier('E', now),
      txid: cob.txid,
      valor: toPixAmount(valorCentavos),
      chave: cob.chave,
      horario: now.toISOString(),
      ...payer,
      devolucoes: [],
    };
    cob.pix.push(pix);
    cob.status = 'CONCLUIDA';
    this.pixByEndToEndId.set(pix.endToEndId, pix);
    return pix;
  }

  /** A new devolução of `pix`, in processing until `settle`. */
  requestDevolucao(
    pix: PixRecebido,
    input: { id: string; valor: string; descricao?: string },
    now: Date,
  ): Devolucao {
    const devolucao: Devolucao = {
      id: input.id,
      rtrId: this.identifier('D', now),
      valor: input.valor,
      natureza: 'ORIGINAL',
      ...(input.descricao === undefined ? {} : { descricao: input.descricao }),
      horario: { solicitacao: now.toISOString() },
      status: 'EM_PROCESSAMENTO',
    };
    pix.devolucoes.push(devolucao);
    return devolucao;
  }

  /** What is still refundable from `pix`: its value less every devolução not refused. */
  refundableCentavos(pix: PixRecebido): number {
    const refunded = pix.devolucoes
      .filter((devolucao) => devolucao.status !== 'NAO_REALIZADO')
      .reduce((sum, devolucao) => sum + toCentavos(devolucao.valor), 0);
    return toCentavos(pix.valor) - refunded;
  }

  isExpired(cob: StoredCob, now: Date): boolean {
    return now.getTime() >= cob.criacao.getTime() + cob.expiracao * 1000;
  }

  /**
   * `E` (endToEndId) or `D` (rtrId) + ISPB (8) + yyyyMMddHHmm (UTC) + 11 random alphanumerics: 32 characters, as
   * SPI mints them.
   */
  private identifier(kind: 'E' | 'D', now: Date): string {
    const stamp = now.toISOString().replace(/\D/g, '').slice(0, 12);
    const suffix = Array.from(randomBytes(11), (byte) => ALPHANUMERIC[byte % ALPHANUMERIC.length]).join('');
    return `${kind}${this.ispb}${stamp}${suffix}`;
  }
}

export function toCentavos(amount: string): number {
  const [reais, centavos] = amount.split('.');
  return Number(reais) * 100 + Number(centavos);
}

export function toPixAmount(centavos: number): string {
  const digits = String(centavos).padStart(3, '0');
  return `${digits.slice(0, -2)}.${digits.slice(-2)}`;
}
