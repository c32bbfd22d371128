import { type CallbackSender } from './callback-sender';
import { type CobStore, type StoredCob, type StoredLocation } from './cob-store';
import { dynamicBrCode } from './br-code';

export interface SimulatorSettings {
  /** The receiver's Pix key: the only `chave` this simulated account owns. */
  pixKey: string;
  merchantName: string;
  merchantCity: string;
  pathPrefix: string;
}

export interface SimulatorContext {
  settings: SimulatorSettings;
  store: CobStore;
  webhookUrlByChave: Map<string, string>;
  callbacks: CallbackSender;
}

/** A cob as API Pix v2 returns it (`loc.location` and the v2.0 top-level `location` both present). */
export function cobView(cob: StoredCob, settings: SimulatorSettings): Record<string, unknown> {
  return {
    calendario: { criacao: cob.criacao.toISOString(), expiracao: cob.expiracao },
    txid: cob.txid,
    revisao: cob.revisao,
    loc: { id: cob.loc.id, location: cob.loc.location, tipoCob: 'cob' },
    location: cob.loc.location,
    status: cob.status,
    valor: { original: cob.valorOriginal },
    chave: cob.chave,
    ...(cob.solicitacaoPagador === undefined ? {} : { solicitacaoPagador: cob.solicitacaoPagador }),
    pixCopiaECola: dynamicBrCode(cob.loc.location, settings.merchantName, settings.merchantCity),
    ...(cob.pix.length === 0 ? {} : { pix: cob.pix }),
  };
}

/** A location as API Pix v2 returns it from `POST /loc` (`txid` only while a cob is linked to it). */
export function locationView(loc: StoredLocation): Record<string, unknown> {
  return {
    id: loc.id,
    location: loc.location,
    tipoCob: 'cob',
    criacao: loc.criacao.toISOString(),
    ...(loc.txid === undefined ? {} : { txid: loc.txid }),
  };
}

/** Where this simulator's locations live, as seen by whoever called it (scheme-less, as BR Codes carry it). */
export function locationBase(host: string | undefined, settings: SimulatorSettings): string {
  return `${host}${settings.pathPrefix}/loc`;
}
