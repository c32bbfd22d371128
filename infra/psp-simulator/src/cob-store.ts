import { randomBytes, randomUUID } from 'node:crypto';

export type CobStatus = 'ATIVA' | 'CONCLUIDA' | 'REMOVIDA_PELO_USUARIO_RECEBEDOR' | 'REMOVIDA_PELO_PSP';

export interface PixRecebido {
  endToEndId: string;
  txid: string;
  valor: string;
  horario: string;
}

/** An API Pix payload location (`loc`): the URL a dynamic BR Code carries, linked to at most one cob. */
export interface StoredLocation {
  /** API Pix `loc.id` (an integer); the URL itself carries a UUID, as PSPs do. */
  id: number;
  uuid: string;
  /** Scheme-less, as BR Codes carry it: `host/prefix/loc/<uuid>`. */
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
  chave: string;
  solicitacaoPagador?: string;
  pix: PixRecebido[];
}

export interface NewCob {
  txid: string;
  expiracao: number;
  valorOriginal: string;
  chave: string;
  solicitacaoPagador?: string;
}

export type CobChange = Partial<
  Pick<StoredCob, 'expiracao' | 'valorOriginal' | 'solicitacaoPagador' | 'status' | 'loc'>
>;

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** The simulated bank's ledger of immediate charges; in memory because it stands in for someone else's system. */
export class CobStore {
  private readonly byTxid = new Map<string, StoredCob>();
  private readonly locationById = new Map<number, StoredLocation>();
  private readonly locationByUuid = new Map<string, StoredLocation>();
  private lastLocId = 0;

  constructor(private readonly ispb: string) {}

  get(txid: string): StoredCob | undefined {
    return this.byTxid.get(txid);
  }

  getLocation(id: number): StoredLocation | undefined {
    return this.locationById.get(id);
  }

  /** The cob a payer's bank finds at a location URL; none once the cob has moved to another location. */
  getByLocationUuid(uuid: string): StoredCob | undefined {
    const txid = this.locationByUuid.get(uuid)?.txid;
    return txid === undefined ? undefined : this.byTxid.get(txid);
  }

  /** `POST /loc`: a new location, not yet linked to any cob. */
  createLocation(locationBase: string, now: Date): StoredLocation {
    const uuid = randomUUID();
    const loc: StoredLocation = {
      id: ++this.lastLocId,
      uuid,
      location: `${locationBase}/${uuid}`,
      criacao: now,
    };
    this.locationById.set(loc.id, loc);
    this.locationByUuid.set(uuid, loc);
    return loc;
  }

  create(input: NewCob, locationBase: string, now: Date): StoredCob {
    const loc = this.createLocation(locationBase, now);
    const cob: StoredCob = { ...input, revisao: 0, status: 'ATIVA', criacao: now, loc, pix: [] };
    loc.txid = cob.txid;
    this.byTxid.set(cob.txid, cob);
    return cob;
  }

  /** Applies a revision; a new `loc` takes over the cob, and the old location stops serving it. */
  revise(cob: StoredCob, change: CobChange): StoredCob {
    if (change.loc !== undefined && change.loc !== cob.loc) {
      delete cob.loc.txid;
      change.loc.txid = cob.txid;
    }
    Object.assign(cob, change);
    cob.revisao += 1;
    return cob;
  }

  /** Records a received Pix; the cob concludes once the payments cover its original amount. */
  receive(cob: StoredCob, valorCentavos: number, now: Date): PixRecebido {
    const pix: PixRecebido = {
      endToEndId: this.endToEndId(now),
      txid: cob.txid,
      valor: toPixAmount(valorCentavos),
      horario: now.toISOString(),
    };
    cob.pix.push(pix);
    const paid = cob.pix.reduce((sum, entry) => sum + toCentavos(entry.valor), 0);
    if (paid >= toCentavos(cob.valorOriginal)) cob.status = 'CONCLUIDA';
    return pix;
  }

  isExpired(cob: StoredCob, now: Date): boolean {
    return now.getTime() >= cob.criacao.getTime() + cob.expiracao * 1000;
  }

  /** `E` + payer PSP ISPB (8) + yyyyMMddHHmm (UTC) + 11 random alphanumerics: 32 characters, as SPI mints them. */
  private endToEndId(now: Date): string {
    const stamp = now.toISOString().replace(/\D/g, '').slice(0, 12);
    const suffix = Array.from(randomBytes(11), (byte) => ALPHANUMERIC[byte % ALPHANUMERIC.length]).join('');
    return `E${this.ispb}${stamp}${suffix}`;
  }
}

export function toCentavos(amount: string): number {
  const [reais, centavos] = amount.split('.');
  return Number(reais) * 100 + Number(centavos);
}

function toPixAmount(centavos: number): string {
  const digits = String(centavos).padStart(3, '0');
  return `${digits.slice(0, -2)}.${digits.slice(-2)}`;
}
