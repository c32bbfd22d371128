import { randomBytes, randomUUID } from 'node:crypto';

export type CobStatus = 'ATIVA' | 'CONCLUIDA' | 'REMOVIDA_PELO_USUARIO_RECEBEDOR' | 'REMOVIDA_PELO_PSP';

export interface PixRecebido {
  endToEndId: string;
  txid: string;
  valor: string;
  horario: string;
}

export interface StoredCob {
  txid: string;
  revisao: number;
  status: CobStatus;
  criacao: Date;
  expiracao: number;
  /** API Pix `loc.id` (an integer); the location URL itself carries a UUID, as PSPs do. */
  locId: number;
  locationId: string;
  location: string;
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
  Pick<StoredCob, 'expiracao' | 'valorOriginal' | 'solicitacaoPagador' | 'status'>
>;

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** The simulated bank's ledger of immediate charges; in memory because it stands in for someone else's system. */
export class CobStore {
  private readonly byTxid = new Map<string, StoredCob>();
  private readonly txidByLocationId = new Map<string, string>();
  private lastLocId = 0;

  constructor(private readonly ispb: string) {}

  get(txid: string): StoredCob | undefined {
    return this.byTxid.get(txid);
  }

  getByLocationId(locationId: string): StoredCob | undefined {
    const txid = this.txidByLocationId.get(locationId);
    return txid === undefined ? undefined : this.byTxid.get(txid);
  }

  create(input: NewCob, locationBase: string, now: Date): StoredCob {
    const locationId = randomUUID();
    const cob: StoredCob = {
      ...input,
      revisao: 0,
      status: 'ATIVA',
      criacao: now,
      locId: ++this.lastLocId,
      locationId,
      location: `${locationBase}/${locationId}`,
      pix: [],
    };
    this.byTxid.set(cob.txid, cob);
    this.txidByLocationId.set(locationId, cob.txid);
    return cob;
  }

  revise(cob: StoredCob, change: CobChange): StoredCob {
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
