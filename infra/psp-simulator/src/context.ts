import { type PspProfile } from '@gateway/contracts';
import { type Logger } from '@gateway/observability';
import { type CallbackSender } from './callback-sender';
import { type SimulatorClock } from './clock';
import { type AmountDue } from './cobv-amount';
import { type CobvStore, type StoredCobv } from './cobv-store';
import {
  type CobStore,
  type PixRecebido,
  type StoredCob,
  type StoredLocation,
  toPixAmount,
} from './cob-store';
import { dynamicBrCode } from './br-code';
import { type EnvioNotifier } from './envio-notifier';
import { type EnvioRules } from './envio-rules';
import { type EnvioStore } from './envio-store';
import { type FaultInjector } from './faults';
import { type InfracaoStore } from './infracao-store';
import { type PayloadSigner } from './payload-signer';
import { type RecStore } from './rec-store';
import { type CobrStore } from './cobr-store';
import { type WebhookProbeTls } from './psp-profile';
import { type SettlementTimers } from './settlement-timers';

export interface SimulatorSettings {
  /** The receiver's Pix key: the only `chave` this simulated account owns. */
  pixKey: string;
  merchantName: string;
  merchantCity: string;
  pathPrefix: string;
  /** The receiving account holder's CNPJ (`WebhookCompleto.cnpj`). */
  cnpj: string;
  /** How long a devolução stays EM_PROCESSAMENTO before it settles (and the callback tells it). */
  devolucaoSettleMs: number;
  /** How long a sent Pix (Efí envio) stays EM_PROCESSAMENTO before it settles (and the callback tells it). */
  envioSettleMs: number;
  /** The bank it behaves like (docs/psp-profiles.md). */
  profile: PspProfile;
  /** The receiving account holder as a cobv shows it (API Pix `recebedor`: CNPJ, name and address). */
  recebedor: { cnpj: string; nome: string; logradouro: string; cidade: string; uf: string; cep: string };
}

export interface SimulatorContext {
  settings: SimulatorSettings;
  logger: Logger;
  store: CobStore;
  /** Charges with a due date (`cobv`), in the same books. */
  cobvs: CobvStore;
  /** Pix Automático's recurrences and the requests for the payer's authorization, in the same books. */
  recs: RecStore;
  /** Their cycles (`cobr`), debited by the sandbox payer's bank on their day. */
  cobrs: CobrStore;
  /** The simulator's one source of "now", which tests move forward. */
  clock: SimulatorClock;
  /** The MED infractions of the account, kept in the Efí mode (its `medDefence`). */
  infracoes: InfracaoStore;
  /** The Pix the account sends, and its balance. */
  envios: EnvioStore;
  /** Sandbox rules failing chosen envios (tests). */
  envioRules: EnvioRules;
  callbacks: CallbackSender;
  /** The callbacks of settled envios, owed in the books until accepted (resent after a restart). */
  envioNotifier: EnvioNotifier;
  /** Devoluções and envios waiting to settle, tried again until they do (stopped when the simulator closes; a restart picks them up from the books). */
  settlements: SettlementTimers;
  signer: PayloadSigner;
  faults: FaultInjector;
  /** The TLS of the check that a webhook refuses a connection without a client certificate (`callbackMtls`). */
  webhookProbe: WebhookProbeTls;
}

/** Where payload locations are served: their own path, outside API Pix (`GET /{pixUrlAccessToken}`). */
export const PAYLOAD_PATH = '/qr/v2';

/** A cob as API Pix v2 returns it (`loc` complete, and the v2.0 top-level `location` too). */
export function cobView(cob: StoredCob, settings: SimulatorSettings): Record<string, unknown> {
  return {
    calendario: { criacao: cob.criacao.toISOString(), expiracao: cob.expiracao },
    txid: cob.txid,
    revisao: cob.revisao,
    loc: locationView(cob.loc),
    location: cob.loc.location,
    status: cob.status,
    valor: valorView(cob),
    chave: cob.chave,
    ...(cob.devedor === undefined ? {} : { devedor: cob.devedor }),
    ...(cob.solicitacaoPagador === undefined ? {} : { solicitacaoPagador: cob.solicitacaoPagador }),
    pixCopiaECola: dynamicBrCode(cob.loc.location, settings.merchantName, settings.merchantCity),
    ...(cob.pix.length === 0 ? {} : { pix: cob.pix.map(pixView) }),
  };
}

/** What a payer's bank reads at the location (`CobPayload`), signed by `PayloadSigner`. */
export function cobPayload(cob: StoredCob, now: Date): Record<string, unknown> {
  return {
    txid: cob.txid,
    revisao: cob.revisao,
    calendario: {
      criacao: cob.criacao.toISOString(),
      apresentacao: now.toISOString(),
      expiracao: cob.expiracao,
    },
    status: cob.status,
    valor: valorView(cob),
    chave: cob.chave,
    ...(cob.devedor === undefined ? {} : { devedor: cob.devedor }),
    ...(cob.solicitacaoPagador === undefined ? {} : { solicitacaoPagador: cob.solicitacaoPagador }),
  };
}

/** A location as API Pix v2 returns it (`txid` only while a cob is linked to it). */
export function locationView(loc: StoredLocation): Record<string, unknown> {
  return {
    id: loc.id,
    location: loc.location,
    tipoCob: loc.tipoCob,
    criacao: loc.criacao.toISOString(),
    ...(loc.txid === undefined ? {} : { txid: loc.txid }),
  };
}

/** A cobv as API Pix v2 returns it (`CobVCompleta`): `loc` complete, the receiver, and its Pix once paid. */
export function cobvView(cobv: StoredCobv, settings: SimulatorSettings): Record<string, unknown> {
  return {
    calendario: {
      criacao: cobv.criacao.toISOString(),
      dataDeVencimento: cobv.dataDeVencimento,
      validadeAposVencimento: cobv.validadeAposVencimento,
    },
    txid: cobv.txid,
    revisao: cobv.revisao,
    loc: locationView(cobv.loc),
    location: cobv.loc.location,
    status: cobv.status,
    devedor: cobv.devedor,
    recebedor: settings.recebedor,
    valor: { original: cobv.valorOriginal, ...cobv.regras },
    chave: cobv.chave,
    ...(cobv.solicitacaoPagador === undefined ? {} : { solicitacaoPagador: cobv.solicitacaoPagador }),
    ...(cobv.infoAdicionais === undefined ? {} : { infoAdicionais: cobv.infoAdicionais }),
    pixCopiaECola: dynamicBrCode(cobv.loc.location, settings.merchantName, settings.merchantCity),
    ...(cobv.pix.length === 0 ? {} : { pix: cobv.pix.map(pixView) }),
  };
}

/**
 * What a payer's bank reads at a cobv's location (`CobVPayload`) for the day it means to pay: `valor.final` and the
 * components that make it up that day (those that are not zero).
 */
export function cobvPayload(
  cobv: StoredCobv,
  due: AmountDue,
  settings: SimulatorSettings,
  now: Date,
): Record<string, unknown> {
  const money = (centavos: number) => toPixAmount(centavos);
  return {
    txid: cobv.txid,
    revisao: cobv.revisao,
    calendario: {
      criacao: cobv.criacao.toISOString(),
      apresentacao: now.toISOString(),
      dataDeVencimento: cobv.dataDeVencimento,
      validadeAposVencimento: cobv.validadeAposVencimento,
    },
    devedor: cobv.devedor,
    recebedor: settings.recebedor,
    status: cobv.status,
    valor: {
      original: money(due.original),
      ...(due.multa > 0 ? { multa: money(due.multa) } : {}),
      ...(due.juros > 0 ? { juros: money(due.juros) } : {}),
      ...(due.abatimento > 0 ? { abatimento: money(due.abatimento) } : {}),
      ...(due.desconto > 0 ? { desconto: money(due.desconto) } : {}),
      final: money(due.final),
    },
    chave: cobv.chave,
    ...(cobv.solicitacaoPagador === undefined ? {} : { solicitacaoPagador: cobv.solicitacaoPagador }),
    ...(cobv.infoAdicionais === undefined ? {} : { infoAdicionais: cobv.infoAdicionais }),
  };
}

/** A received Pix (`Pix`), with its devoluções once it has any. */
export function pixView(pix: PixRecebido): Record<string, unknown> {
  const { devolucoes, ...rest } = pix;
  return devolucoes.length === 0 ? rest : { ...rest, devolucoes };
}

/** Where this simulator's locations live, as seen by whoever called it (scheme-less, as BR Codes carry it). */
export function locationBase(host: string | undefined): string {
  return `${host}${PAYLOAD_PATH}`;
}

function valorView(cob: StoredCob): Record<string, unknown> {
  return cob.modalidadeAlteracao === 1
    ? { original: cob.valorOriginal, modalidadeAlteracao: 1 }
    : { original: cob.valorOriginal };
}
