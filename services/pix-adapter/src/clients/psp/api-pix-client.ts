import { Agent, type Dispatcher } from 'undici';
import { type Logger } from '@gateway/observability';
import { centavosToPixAmount } from '../../domain/amount';
import {
  PSP_PROFILES,
  type PspCallExtras,
  type PspProfile,
  type PspProfileSettings,
  profileCallExtras,
  withQuery,
} from '../../domain/psp-profiles';
import { type Checked, type Cob, type PixLocation, validateCob, validateCobv, validateLocation } from './cob';
import type { CobvValor } from '../../domain/due-charge';
import { type PixDevolucao, validateDevolucao } from './devolucao';
import {
  type Cobr,
  type Rec,
  type RecLocation,
  type SolicRec,
  cobOfCobr,
  validateCobr,
  validateRec,
  validateRecList,
  validateRecLocation,
  validateSolicRec,
} from './rec';
import {
  type ListPage,
  type ListedPix,
  listQuery,
  readAllPages,
  validateReceivedPage,
  validateReceivedPix,
} from './pix-lists';
import { sendAuthorized } from './http';
import { ClientCredentialsToken } from './oauth-token';
import {
  CONTESTED,
  MED_DEFENCE_SCOPES,
  type Infracao,
  acceptAnyAnswer,
  infractionOf,
  isDefended,
  validateInfracoesPage,
} from './infracao';
import { PspError, isPspRefusal, pspErrorFromResponse } from './psp-error';
import { type RetryPolicy, withRetry } from './retry';

export interface ApiPixClientConfig {
  /** e.g. `https://pix.psp.com.br`, without trailing slash. */
  baseUrl: string;
  /** Where the PSP mounts API Pix v2: `/v2`, `/pix/v2`, `/api/v2`... */
  pathPrefix: string;
  oauthTokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** OAuth scopes asked for (space-separated); default `API_PIX_SCOPES`, empty for none. */
  scope?: string;
  /** The scopes of Pix Automático's own token (`PSP_AUTOMATIC_PIX_OAUTH_SCOPE`); default `API_PIX_AUTOMATIC_SCOPES`. */
  automaticPixScope?: string;
  /** Client certificate most PSPs require: PEM strings, or a PKCS#12 (.p12/.pfx) file's bytes and its passphrase. */
  mTLS?: ClientCertificate;
  /** How this PSP differs from the API Pix baseline (`PSP_PROFILE`); default `bcb`, the baseline itself. */
  profile?: PspProfile;
  /** The values the profile's extra headers and query parameters take (BB's developer key, Inter's account). */
  profileSettings?: PspProfileSettings;
  timeoutMs: number;
  maxRetries: number;
}

export type ClientCertificate =
  { cert: string; key: string; ca?: string } | { pfx: Buffer; passphrase?: string; ca?: string };

export interface ApiPixClientDeps {
  logger?: Logger;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  retryBaseDelayMs?: number;
  retryMaxDelayMs?: number;
}

export interface DevolucaoInput {
  valorCentavos: number;
  /** Shown to the payer (API Pix `descricao`, at most 140 characters). */
  descricao?: string;
}

export interface CreateChargeInput {
  expiracaoSeconds: number;
  valorCentavos: number;
  /** The receiver's Pix key (DICT key) the charge is paid into. */
  chave: string;
  /** Free text shown to the payer (max 140 chars per API Pix). */
  solicitacaoPagador?: string;
  /** Who the charge is addressed to (API Pix `devedor`: `cpf` or `cnpj`, and `nome`). */
  devedor?: Devedor;
}

/** What a charge with a due date (`PUT /cobv/{txid}`) is opened with. */
export interface CreateDueChargeInput {
  calendario: { dataDeVencimento: string; validadeAposVencimento: number };
  valor: CobvValor;
  chave: string;
  solicitacaoPagador?: string;
  /** Required by API Pix for a cobv. */
  devedor: Devedor;
}

/** API Pix `devedor` of a cob: a person (`cpf`) or a company (`cnpj`), and the name. */
export type Devedor = { cpf: string; nome: string } | { cnpj: string; nome: string };

type Path = `/${string}`;

/**
 * The scopes API Pix ties to the operations this client calls for immediate charges (`PUT/PATCH/GET /cob`, `POST /loc`,
 * `PUT /webhook`, `PUT/GET /pix/{e2eid}/devolucao/{id}`).
 */
export const API_PIX_SCOPES = 'cob.write cob.read payloadlocation.write webhook.write pix.write pix.read';

/**
 * The scopes of charges with a due date (`PUT/PATCH/GET /cobv`), asked for in a token of their own, on the first
 * due-date call: a PSP application that was never granted them (an OAuth server refuses a token asking for a scope it
 * does not grant, RFC 6749 section 5.2 `invalid_scope`) still opens every immediate charge, as before due dates.
 */
export const API_PIX_DUE_SCOPES = `${API_PIX_SCOPES} cobv.write cobv.read`;

/**
 * The scopes of Pix Automático (`/rec`, `/solicrec`, `/locrec`, `/cobr`, `/webhookrec`, `/webhookcobr`), asked for in a
 * token of their own on the first recurrence call, as the due-date charges' are: a PSP application never granted them
 * still opens every other charge.
 */
export const API_PIX_AUTOMATIC_SCOPES =
  'rec.write rec.read solicrec.write solicrec.read cobr.write cobr.read payloadlocationrec.write ' +
  'payloadlocationrec.read webhookrec.write webhookrec.read webhookcobr.write webhookcobr.read';

/** What `POST /rec` is sent (API Pix `RecSolicitada`). */
export interface CreateRecInput {
  vinculo: { objeto?: string; contrato: string; devedor: Devedor };
  calendario: { dataInicial: string; dataFinal?: string; periodicidade: string };
  valor?: { valorRec: string } | { valorMinimoRecebedor: string };
  politicaRetentativa: 'NAO_PERMITE' | 'PERMITE_3R_7D';
  loc?: number;
  ativacao?: { dadosJornada: { txid: string } };
}

/** What `POST /solicrec` is sent (API Pix `SolicRecSolicitada`). */
export interface CreateSolicRecInput {
  idRec: string;
  calendario: { dataExpiracaoSolicitacao: string };
  destinatario: { conta: string; ispbParticipante: string; agencia?: string; cpf?: string; cnpj?: string };
}

/** What `PUT /cobr/{txid}` is sent (API Pix `CobRSolicitada`). */
export interface CreateCobrInput {
  idRec: string;
  infoAdicional?: string;
  calendario: { dataDeVencimento: string };
  valor: { original: string };
  /** Required by `CobRBase`: whether the debit moves to the next business day when the due date is none. */
  ajusteDiaUtil: boolean;
  recebedor: { agencia?: string; conta: string; tipoConta: string };
}

/** Client of the BCB "API Pix" v2 cob, loc, pix (devolução) and webhook endpoints of a receiving PSP. */
/**
 * What every client of the PSP holds: one connection pool (with the mTLS certificate when given), its OAuth token
 * (client credentials, `defaultScope` unless the configuration names one) and its retry policy.
 */
export function pspSession(
  config: Pick<
    ApiPixClientConfig,
    | 'oauthTokenUrl'
    | 'clientId'
    | 'clientSecret'
    | 'scope'
    | 'mTLS'
    | 'timeoutMs'
    | 'maxRetries'
    | 'profile'
    | 'profileSettings'
  >,
  deps: ApiPixClientDeps,
  defaultScope: string,
): {
  dispatcher: Dispatcher;
  token: ClientCredentialsToken;
  retryPolicy: RetryPolicy;
  extras: PspCallExtras;
} {
  const dispatcher = new Agent({ connect: config.mTLS ? { ...config.mTLS } : undefined });
  const profile = config.profile ?? PSP_PROFILES.bcb;
  return {
    dispatcher,
    // The client id is a setting of every profile (Sicoob sends it as a header).
    extras: profileCallExtras(profile, { ...config.profileSettings, clientId: config.clientId }),
    token: new ClientCredentialsToken(
      {
        ...config,
        scope: config.scope ?? defaultScope,
        tokenRequest: profile.tokenRequest,
        tokenBody: profile.tokenBody,
        tokenQuery: profile.tokenQuery,
      },
      dispatcher,
      deps.now ?? Date.now,
    ),
    retryPolicy: {
      maxRetries: config.maxRetries,
      baseDelayMs: deps.retryBaseDelayMs ?? 200,
      maxDelayMs: deps.retryMaxDelayMs ?? 5000,
      sleep: deps.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
      random: deps.random ?? Math.random,
    },
  };
}

/** Where a MED's defence went: to the PSP (now or before), nowhere (the profile takes none, the PSP lists no infraction). */
export type MedDefenceOutcome = 'submitted' | 'unsupported' | 'no_infraction';

/** The connection and token a call is sent with. */
interface CallSession {
  dispatcher: Dispatcher;
  token: ClientCredentialsToken;
}

export class ApiPixClient {
  private readonly dispatcher: Dispatcher;
  private readonly token: ClientCredentialsToken;
  /** The infractions' own token (their scopes, asked for only by a profile that takes defences), built on first use. */
  private medSession?: CallSession;
  /** The due-date charges' own token (`API_PIX_DUE_SCOPES`, unless the configuration names the scopes), on first use. */
  private dueSession?: CallSession;
  /** Pix Automático's own token (`API_PIX_AUTOMATIC_SCOPES`, unless configured otherwise), on first use. */
  private recSession?: CallSession;
  private readonly retryPolicy: RetryPolicy;
  private readonly extras: PspCallExtras;

  constructor(
    private readonly config: ApiPixClientConfig,
    private readonly deps: ApiPixClientDeps = {},
  ) {
    ({
      dispatcher: this.dispatcher,
      token: this.token,
      retryPolicy: this.retryPolicy,
      extras: this.extras,
    } = pspSession(config, deps, API_PIX_SCOPES));
  }

  /**
   * `PUT /cob/{txid}`. A PUT whose answer was lost may have created the cob, and PSPs answer the retry in their own
   * ways (a 400 problem, a 409, a proprietary error): on any refusal the cob is read back by txid, and if it charges
   * the same amount to the same key it is ours. Otherwise the refusal stands, as a conflict when the txid is taken.
   */
  createCharge(txid: string, input: CreateChargeInput): Promise<Cob> {
    return maskingPixKey(input.chave, () => this.putCharge(txid, input));
  }

  private async putCharge(txid: string, input: CreateChargeInput): Promise<Cob> {
    const valorOriginal = centavosToPixAmount(input.valorCentavos);
    const body = {
      calendario: { expiracao: input.expiracaoSeconds },
      valor: { original: valorOriginal },
      chave: input.chave,
      ...(input.devedor === undefined ? {} : { devedor: input.devedor }),
      ...(input.solicitacaoPagador === undefined ? {} : { solicitacaoPagador: input.solicitacaoPagador }),
    };
    try {
      return await this.callForCob('cob.create', 'PUT', `/cob/${encodeURIComponent(txid)}`, body, [200, 201]);
    } catch (error) {
      if (!(error instanceof PspError) || error.kind === 'unavailable' || error.kind === 'unauthorized')
        throw error;
      const existing = await this.getCharge(txid).catch((readError: unknown) => {
        if (readError instanceof PspError && readError.kind === 'not_found') throw error;
        throw readError;
      });
      // Ours only if it charges the same amount to the same key and is still open: a cob removed or paid under the
      // same txid is not a charge a buyer can be shown. (The expiry may differ: a retried create recomputes it.)
      const same =
        existing.status === 'ATIVA' &&
        existing.valor.original === valorOriginal &&
        existing.chave === input.chave;
      if (same) return existing;
      throw new PspError(
        'conflict',
        error.status,
        `txid ${txid} already holds a different charge`,
        error.extra,
      );
    }
  }

  /**
   * `PUT /cobv/{txid}`: a charge with a due date. A PUT of the same cobv again answers it as it is (API Pix: a PUT
   * states the cobv anew), so a retry after a lost answer meets the one it made; a different one under the same txid
   * is refused as a conflict, read back as for a cob.
   */
  createDueCharge(txid: string, input: CreateDueChargeInput): Promise<Cob> {
    return maskingPixKey(input.chave, async () => {
      try {
        return await this.callForCobv(
          'cobv.create',
          'PUT',
          `/cobv/${encodeURIComponent(txid)}`,
          input,
          [200, 201],
        );
      } catch (error) {
        if (!(error instanceof PspError) || error.kind === 'unavailable' || error.kind === 'unauthorized')
          throw error;
        const existing = await this.getDueCharge(txid).catch((readError: unknown) => {
          if (readError instanceof PspError && readError.kind === 'not_found') throw error;
          throw readError;
        });
        if (existing.status === 'ATIVA' && sameDueCharge(existing, input)) return existing;
        if (error.kind !== 'invalid') throw error;
        throw new PspError(
          'conflict',
          error.status,
          `txid ${txid} already holds a different charge`,
          error.extra,
        );
      }
    });
  }

  /** Whether this PSP's profile opens charges with a due date (`cobv`; the baseline's API Pix does). */
  opensDueCharges(): boolean {
    return (this.config.profile ?? PSP_PROFILES.bcb).cobv;
  }

  /**
   * `GET /cobv/{txid}`: the charge with a due date as the PSP has it now, with every Pix it took. A Pix listed without
   * its `componentesValor` (a PSP that states them only on the Pix itself) is completed from `GET /pix/{e2eid}` before
   * anything judges it; one that has none there either stays without (a wrong amount).
   */
  async getDueCharge(txid: string): Promise<Cob> {
    const cobv = await this.callForCobv(
      'cobv.get',
      'GET',
      `/cobv/${encodeURIComponent(txid)}`,
      undefined,
      [200],
    );
    if (!cobv.pix?.some((pix) => pix.componentesValor === undefined)) return cobv;
    const pix = [];
    for (const listed of cobv.pix) {
      if (listed.componentesValor !== undefined) pix.push(listed);
      else {
        const { componentesValor } = await this.getReceivedPix(listed.endToEndId);
        pix.push(componentesValor === undefined ? listed : { ...listed, componentesValor });
      }
    }
    return { ...cobv, pix };
  }

  /**
   * `PATCH /cobv/{txid}` `{status: REMOVIDA_PELO_USUARIO_RECEBEDOR}`; a refusal reads the cobv back, as `removeCharge`
   * does for a cob.
   */
  async removeDueCharge(txid: string): Promise<Cob> {
    try {
      return await this.callForCobv(
        'cobv.remove',
        'PATCH',
        `/cobv/${encodeURIComponent(txid)}`,
        { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' },
        [200],
      );
    } catch (error) {
      if (!(error instanceof PspError) || error.kind !== 'invalid') throw error;
      const current = await this.getDueCharge(txid);
      if (current.status === 'ATIVA') throw error;
      return current;
    }
  }

  /**
   * Sandbox only (PSP simulator): the payer pays the cobv what is due on the simulator's date, or on `paidOn`
   * (`YYYY-MM-DD`: the Pix is dated that day, the simulator's clock untouched); a refusal reads it back (one CONCLUIDA
   * was paid by a first attempt whose answer was lost).
   */
  async sandboxPayDue(txid: string, paidOn: string | null = null): Promise<void> {
    try {
      const body = paidOn === null ? {} : { data: paidOn };
      await this.call(
        'sandbox.pay-due',
        'POST',
        `/cobv/pagar/${encodeURIComponent(txid)}`,
        body,
        [200],
        this.due(),
      );
    } catch (error) {
      if (!(error instanceof PspError) || error.kind !== 'invalid') throw error;
      if ((await this.getDueCharge(txid)).status !== 'CONCLUIDA') throw error;
    }
  }

  /** Sandbox only (PSP simulator): the PSP removes the cobv (status REMOVIDA_PELO_PSP). */
  async sandboxRemoveDue(txid: string): Promise<void> {
    await this.call(
      'sandbox.remove-due',
      'POST',
      `/cobv/${encodeURIComponent(txid)}/remover`,
      {},
      [200],
      this.due(),
    );
  }

  /**
   * `POST /loc` `{tipoCob: 'cob'}`: a new payload location, for a cob to move to. Retrying after a lost answer may
   * leave an unused location at the PSP, which is harmless: only the one a cob is moved to is ever shown.
   */
  createLocation(): Promise<PixLocation> {
    return this.callFor('loc.create', validateLocation, 'POST', '/loc', { tipoCob: 'cob' }, [200, 201]);
  }

  /**
   * `PATCH /cob/{txid}` with a new `valor.original` and, given `locId`, the location the cob moves to (so its BR Code
   * changes); the PSP bumps `revisao`. Both change in one revision, so no code ever shows the old amount elsewhere.
   * The `loc` is a `PayloadLocationCob`, whose schema requires `tipoCob` beside `id`.
   */
  updateChargeAmount(txid: string, valorCentavos: number, locId?: number): Promise<Cob> {
    const body = {
      valor: { original: centavosToPixAmount(valorCentavos) },
      ...(locId === undefined ? {} : { loc: { id: locId, tipoCob: 'cob' } }),
    };
    return this.callForCob('cob.update', 'PATCH', `/cob/${encodeURIComponent(txid)}`, body, [200]);
  }

  /**
   * `PATCH /cob/{txid}` with `valor.modalidadeAlteracao` 1: the payer may choose the amount. Charges are opened with a
   * fixed amount, which a PSP takes in one Pix of exactly that amount; the sandbox uses this to let a payer pay less.
   */
  async letPayerChooseAmount(txid: string, valorCentavos: number): Promise<void> {
    const body = { valor: { original: centavosToPixAmount(valorCentavos), modalidadeAlteracao: 1 } };
    await this.callForCob('cob.update', 'PATCH', `/cob/${encodeURIComponent(txid)}`, body, [200]);
  }

  getCharge(txid: string): Promise<Cob> {
    return this.callForCob('cob.get', 'GET', `/cob/${encodeURIComponent(txid)}`, undefined, [200]);
  }

  /**
   * `PATCH /cob/{txid}` `{status: REMOVIDA_PELO_USUARIO_RECEBEDOR}`: the receiver withdraws the charge, so no payer can
   * pay it any more. PSPs refuse to revise a cob that is no longer ATIVA (a retry whose first answer was lost, or a cob
   * paid meanwhile): on a refusal the cob is read back and returned when it is not ATIVA, so the caller sees what
   * became of it (removed, concluded with its PIX). A refusal of a cob still ATIVA stands.
   */
  async removeCharge(txid: string): Promise<Cob> {
    const path: Path = `/cob/${encodeURIComponent(txid)}`;
    try {
      return await this.callForCob(
        'cob.remove',
        'PATCH',
        path,
        { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' },
        [200],
      );
    } catch (error) {
      return this.cobAfterRefusal(error, txid, (cob) => cob.status !== 'ATIVA');
    }
  }

  /**
   * `PUT /pix/{e2eid}/devolucao/{id}`: asks the PSP to return (part of) a received Pix under our own id. A PSP answers
   * a replay with the devolução it made, or refuses the reused id: on a refusal the devolução is read back by id, and
   * if it returns the same amount it is ours. Otherwise the refusal stands (over the Pix's value, past 90 days...).
   */
  async requestDevolucao(endToEndId: string, id: string, input: DevolucaoInput): Promise<PixDevolucao> {
    const valor = centavosToPixAmount(input.valorCentavos);
    const body = { valor, ...(input.descricao === undefined ? {} : { descricao: input.descricao }) };
    try {
      return await this.callFor(
        'devolucao.request',
        validateDevolucao,
        'PUT',
        this.devolucaoPath(endToEndId, id),
        body,
        [200, 201],
      );
    } catch (error) {
      if (!(error instanceof PspError) || (error.kind !== 'invalid' && error.kind !== 'conflict'))
        throw error;
      const existing = await this.getDevolucao(endToEndId, id).catch((readError: unknown) => {
        if (readError instanceof PspError && readError.kind === 'not_found') throw error;
        throw readError;
      });
      if (existing.valor !== valor) throw error;
      return existing;
    }
  }

  /** `GET /pix/{e2eid}/devolucao/{id}`: the devolução as the PSP has it now. */
  getDevolucao(endToEndId: string, id: string): Promise<PixDevolucao> {
    return this.callFor(
      'devolucao.get',
      validateDevolucao,
      'GET',
      this.devolucaoPath(endToEndId, id),
      undefined,
      [200],
    );
  }

  /** `GET /pix/{e2eid}`: one Pix received, with its devoluções as the PSP has them now. */
  getReceivedPix(endToEndId: string): Promise<ListedPix> {
    return this.callFor(
      'pix.get',
      validateReceivedPix,
      'GET',
      `/pix/${encodeURIComponent(endToEndId)}`,
      undefined,
      [200],
    );
  }

  /** `GET /pix?inicio=&fim=`: every Pix received in the period (each page read in turn), with its devoluções. */
  listReceivedPix(inicio: Date, fim: Date): Promise<ListedPix[]> {
    return readAllPages((page) => this.receivedPixPage(inicio, fim, page));
  }

  /** One page (from 0) of `GET /pix?inicio=&fim=`, for a reader that counts its requests. */
  receivedPixPage(inicio: Date, fim: Date, page: number): Promise<ListPage<ListedPix>> {
    return this.callFor(
      'pix.list',
      validateReceivedPage,
      'GET',
      `/pix?${listQuery(inicio, fim, page)}`,
      undefined,
      [200],
    );
  }

  /** `PUT /webhook/{chave}`: the PSP will POST received Pix to `<webhookUrl>/pix`. */
  async registerWebhook(chave: string, webhookUrl: string): Promise<void> {
    await maskingPixKey(chave, () =>
      this.call(
        'webhook.register',
        'PUT',
        `/webhook/${encodeURIComponent(chave)}`,
        { webhookUrl },
        [200, 201, 204],
      ),
    );
  }

  /**
   * Sandbox only (PSP simulator): a payer pays the cob, fully or `valorCentavos`; the PSP then calls back. Refused by
   * the PSP, the cob is read back: one CONCLUIDA was paid (by the first attempt of a retry whose answer was lost).
   */
  async sandboxPay(txid: string, valorCentavos: number | null): Promise<void> {
    const body = valorCentavos === null ? {} : { valor: centavosToPixAmount(valorCentavos) };
    try {
      await this.call('sandbox.pay', 'POST', `/cob/pagar/${encodeURIComponent(txid)}`, body, [200]);
    } catch (error) {
      // A retry whose first answer was lost (a timeout under load) meets the cob that first attempt concluded: it paid.
      await this.cobAfterRefusal(error, txid, (cob) => cob.status === 'CONCLUIDA');
    }
  }

  /** Sandbox only (PSP simulator): the PSP removes the cob (status REMOVIDA_PELO_PSP). */
  async sandboxRemove(txid: string): Promise<void> {
    await this.call('sandbox.expire', 'POST', `/cob/${encodeURIComponent(txid)}/expirar`, {}, [200]);
  }

  /**
   * Sandbox only (PSP simulator): the payer's bank raises a MED on a received Pix (`valorCentavos`, or all of it) as
   * the devolução `id`; a replay answers the same. The PSP then calls back with the Pix and its devoluções.
   */
  async sandboxRaiseMed(endToEndId: string, id: string, valorCentavos: number | null): Promise<void> {
    const body = valorCentavos === null ? {} : { valor: centavosToPixAmount(valorCentavos) };
    await this.call('sandbox.med', 'PUT', this.medPath(endToEndId, id), body, [201]);
  }

  /** Sandbox only (PSP simulator): the MED `id` ends, DEVOLVIDO or NAO_REALIZADO; the PSP then calls back. */
  async sandboxEndMed(endToEndId: string, id: string, status: 'DEVOLVIDO' | 'NAO_REALIZADO'): Promise<void> {
    await this.call('sandbox.med-end', 'POST', `${this.medPath(endToEndId, id)}/concluir`, { status }, [200]);
  }

  /**
   * Defends the MED on a received Pix through the profile's `medDefence` (Efí's infractions, `infracao.ts`): the
   * Pix's infraction is looked up among the account's since `since`, then contested with `text`. A profile without
   * `medDefence` is `unsupported`, without asking the PSP; a Pix with no infraction open is `no_infraction`; an
   * infraction already defended (a retry whose first answer was lost) is `submitted`. A refusal of the defence is read
   * back the same way before it is thrown.
   */
  async defendMed(endToEndId: string, text: string, since: Date): Promise<MedDefenceOutcome> {
    if (!this.config.profile?.medDefence) return 'unsupported';
    const infracao = infractionOf(await this.listInfracoes(since), endToEndId);
    if (!infracao) return 'no_infraction';
    if (isDefended(infracao)) return 'submitted';
    try {
      await this.callFor(
        'med.defence',
        acceptAnyAnswer,
        'POST',
        `/gn/infracoes/${encodeURIComponent(infracao.idInfracao)}/defesa`,
        { analise: CONTESTED, justificativa: text },
        [200, 201],
        this.med(),
      );
    } catch (error) {
      if (!(error instanceof PspError) || !isPspRefusal(error)) throw error;
      const now = infractionOf(await this.listInfracoes(since), endToEndId);
      if (now && isDefended(now)) return 'submitted';
      throw error;
    }
    return 'submitted';
  }

  /** `GET /gn/infracoes?inicio=&fim=` (Efí): the account's infractions from `since` to now, every page. */
  private listInfracoes(since: Date): Promise<Infracao[]> {
    const until = new Date();
    return readAllPages((page) =>
      this.callFor(
        'med.infractions',
        validateInfracoesPage,
        'GET',
        `/gn/infracoes?${listQuery(since, until, page)}`,
        undefined,
        [200],
        this.med(),
      ),
    );
  }

  private med(): CallSession {
    if (!this.medSession) {
      const { dispatcher, token } = pspSession(
        { ...this.config, scope: MED_DEFENCE_SCOPES },
        this.deps,
        MED_DEFENCE_SCOPES,
      );
      this.medSession = { dispatcher, token };
    }
    return this.medSession;
  }

  private due(): CallSession {
    if (!this.dueSession) {
      const { dispatcher, token } = pspSession(this.config, this.deps, API_PIX_DUE_SCOPES);
      this.dueSession = { dispatcher, token };
    }
    return this.dueSession;
  }

  private rec(): CallSession {
    if (!this.recSession) {
      const scope = this.config.automaticPixScope ?? API_PIX_AUTOMATIC_SCOPES;
      const { dispatcher, token } = pspSession({ ...this.config, scope }, this.deps, scope);
      this.recSession = { dispatcher, token };
    }
    return this.recSession;
  }

  // --- Pix Automático ---------------------------------------------------------------------------------------------

  /** Whether this PSP's profile takes Pix Automático (`/rec`, `/cobr`; the baseline's API Pix does). */
  opensRecurrences(): boolean {
    return (this.config.profile ?? PSP_PROFILES.bcb).automaticPix;
  }

  /** `POST /rec`: the PSP names the recurrence (`idRec`); not idempotent, so its caller records the attempt first. */
  createRecurrence(input: CreateRecInput): Promise<Rec> {
    return this.callFor('rec.create', validateRec, 'POST', '/rec', input, [200, 201], this.rec());
  }

  /** `GET /rec/{idRec}`, with `txid` the QR code that also pays that charge (journey 3). */
  getRecurrence(idRec: string, txid?: string): Promise<Rec> {
    const query = txid === undefined ? '' : `?txid=${encodeURIComponent(txid)}`;
    return this.callFor(
      'rec.get',
      validateRec,
      'GET',
      `/rec/${encodeURIComponent(idRec)}${query}`,
      undefined,
      [200],
      this.rec(),
    );
  }

  /** `GET /rec?inicio&fim&cpf|cnpj`: the recurrences of a payer created in the period (one page, the most a PSP lists). */
  async listRecurrences(
    inicio: Date,
    fim: Date,
    devedor: { cpf: string } | { cnpj: string },
  ): Promise<Rec[]> {
    const query = new URLSearchParams({
      ...Object.fromEntries(new URLSearchParams(listQuery(inicio, fim, 0))),
      ...devedor,
    });
    const page = await this.callFor(
      'rec.list',
      validateRecList,
      'GET',
      `/rec?${query.toString()}`,
      undefined,
      [200],
      this.rec(),
    );
    return page.recs;
  }

  /** `PATCH /rec/{idRec}` `{status: CANCELADA}`; a refusal is thrown as it is (its caller reads the recurrence). */
  cancelRecurrence(idRec: string): Promise<Rec> {
    return this.callFor(
      'rec.cancel',
      validateRec,
      'PATCH',
      `/rec/${encodeURIComponent(idRec)}`,
      { status: 'CANCELADA' },
      [200],
      this.rec(),
    );
  }

  /** `POST /solicrec`: the payer's bank is asked for their authorization (journey 1). */
  requestRecurrenceAuthorization(input: CreateSolicRecInput): Promise<SolicRec> {
    return this.callFor(
      'solicrec.create',
      validateSolicRec,
      'POST',
      '/solicrec',
      input,
      [200, 201],
      this.rec(),
    );
  }

  /** `POST /locrec`: a payload location for a recurrence's QR code (journeys 2 and 3). */
  createRecurrenceLocation(): Promise<RecLocation> {
    return this.callFor('locrec.create', validateRecLocation, 'POST', '/locrec', {}, [200, 201], this.rec());
  }

  /**
   * `PUT /cobr/{txid}`: a cycle. A PUT whose answer was lost may have created it: a refusal reads the cobr back, and
   * the same recurrence, due date and amount under the txid is ours.
   */
  async createCycle(txid: string, input: CreateCobrInput): Promise<Cobr> {
    const path: Path = `/cobr/${encodeURIComponent(txid)}`;
    try {
      return await this.callFor('cobr.create', validateCobr, 'PUT', path, input, [200, 201], this.rec());
    } catch (error) {
      if (!(error instanceof PspError) || error.kind === 'unavailable' || error.kind === 'unauthorized')
        throw error;
      const existing = await this.getCycle(txid).catch((readError: unknown) => {
        if (readError instanceof PspError && readError.kind === 'not_found') throw error;
        throw readError;
      });
      const same =
        existing.idRec === input.idRec &&
        existing.calendario.dataDeVencimento === input.calendario.dataDeVencimento &&
        existing.valor.original === input.valor.original;
      if (same) return existing;
      throw error;
    }
  }

  getCycle(txid: string): Promise<Cobr> {
    return this.callFor(
      'cobr.get',
      validateCobr,
      'GET',
      `/cobr/${encodeURIComponent(txid)}`,
      undefined,
      [200],
      this.rec(),
    );
  }

  /** A cycle read as the charge it is (`cobOfCobr`). */
  async getCycleAsCharge(txid: string): Promise<Cob> {
    return cobOfCobr(await this.getCycle(txid));
  }

  /**
   * `PATCH /cobr/{txid}` `{status: CANCELADA}`; a refusal reads it back: a cobr no longer open is answered as it is
   * (cancelled by a first attempt, or debited meanwhile), one still open (the day of its debit: too late) is refused.
   */
  async cancelCycle(txid: string): Promise<Cob> {
    try {
      return cobOfCobr(
        await this.callFor(
          'cobr.cancel',
          validateCobr,
          'PATCH',
          `/cobr/${encodeURIComponent(txid)}`,
          { status: 'CANCELADA' },
          [200],
          this.rec(),
        ),
      );
    } catch (error) {
      if (!(error instanceof PspError) || error.kind !== 'invalid') throw error;
      const current = await this.getCycleAsCharge(txid);
      if (current.status === 'ATIVA') throw error;
      return current;
    }
  }

  /** `POST /cobr/{txid}/retentativa/{data}`: a new attempt on `data` (PERMITE_3R_7D). */
  retryCycle(txid: string, data: string): Promise<Cobr> {
    return this.callFor(
      'cobr.retry',
      validateCobr,
      'POST',
      `/cobr/${encodeURIComponent(txid)}/retentativa/${encodeURIComponent(data)}`,
      // The operation takes no body.
      undefined,
      [200, 201],
      this.rec(),
    );
  }

  /** `PUT /webhookrec` and `PUT /webhookcobr`: where the PSP tells of recurrences (`/rec`) and cycles (`/cobr`). */
  async registerRecurrenceWebhooks(recUrl: string, cobrUrl: string): Promise<void> {
    await this.call(
      'webhookrec.register',
      'PUT',
      '/webhookrec',
      { webhookUrl: recUrl },
      [200, 201, 204],
      this.rec(),
    );
    await this.call(
      'webhookcobr.register',
      'PUT',
      '/webhookcobr',
      { webhookUrl: cobrUrl },
      [200, 201, 204],
      this.rec(),
    );
  }

  /**
   * Sandbox only (PSP simulator): the payer's bank answers the request for authorization (journey 1), or the QR code
   * of the recurrence's location it read (journey 2).
   */
  async sandboxAnswerAuthorization(
    asked: { idSolicRec: string } | { locId: number },
    accept: boolean,
  ): Promise<void> {
    const action = accept ? 'aceitar' : 'rejeitar';
    const [kind, id] =
      'idSolicRec' in asked ? ['solicrec', asked.idSolicRec] : ['locrec', String(asked.locId)];
    await this.call(
      `sandbox.${kind}-${action}`,
      'POST',
      `/sandbox/${kind}/${encodeURIComponent(id)}/${action}`,
      {},
      [200],
      this.rec(),
    );
  }

  /** Sandbox only (PSP simulator): the payer cancels the approved recurrence. */
  async sandboxPayerCancel(idRec: string): Promise<void> {
    await this.call(
      'sandbox.rec-cancel',
      'POST',
      `/sandbox/rec/${encodeURIComponent(idRec)}/cancelar`,
      {},
      [200],
      this.rec(),
    );
  }

  /** Sandbox only (PSP simulator): the next attempt of the recurrence's next cycle fails. */
  async sandboxFailNextCycle(idRec: string): Promise<void> {
    await this.call(
      'sandbox.rec-fail-next',
      'POST',
      `/sandbox/rec/${encodeURIComponent(idRec)}/falhar-proxima`,
      {},
      [200],
      this.rec(),
    );
  }

  /** Sandbox only (PSP simulator): the recurrence's own clock's today (`GET /sandbox/rec/{idRec}/relogio`). */
  async sandboxRecurrenceToday(idRec: string): Promise<string> {
    const body = await this.call(
      'sandbox.rec-clock',
      'GET',
      `/sandbox/rec/${encodeURIComponent(idRec)}/relogio`,
      undefined,
      [200],
      this.rec(),
    );
    return todayIn(body);
  }

  /** Sandbox only (PSP simulator): the recurrence's own clock moves to `ate`; answers its new today. */
  async sandboxAdvanceRecurrence(idRec: string, ate: string): Promise<string> {
    const body = await this.call(
      'sandbox.rec-advance',
      'POST',
      `/sandbox/rec/${encodeURIComponent(idRec)}/relogio/avancar`,
      { ate },
      [200],
      this.rec(),
    );
    return todayIn(body);
  }

  async close(): Promise<void> {
    await Promise.all([
      this.dispatcher.close(),
      this.medSession?.dispatcher.close(),
      this.dueSession?.dispatcher.close(),
      this.recSession?.dispatcher.close(),
    ]);
  }

  /**
   * A change of the cob the PSP refused (`invalid`): the cob read back when `done` says the change already happened
   * (a retry whose first answer was lost), the refusal otherwise. Any other failure is rethrown as it is.
   */
  private async cobAfterRefusal(error: unknown, txid: string, done: (cob: Cob) => boolean): Promise<Cob> {
    if (!(error instanceof PspError) || error.kind !== 'invalid') throw error;
    const current = await this.getCharge(txid);
    if (!done(current)) throw error;
    return current;
  }

  private medPath(endToEndId: string, id: string): Path {
    return `/pix/${encodeURIComponent(endToEndId)}/med/${encodeURIComponent(id)}`;
  }

  private devolucaoPath(endToEndId: string, id: string): Path {
    return `/pix/${encodeURIComponent(endToEndId)}/devolucao/${encodeURIComponent(id)}`;
  }

  private callForCob(
    operation: string,
    method: Dispatcher.HttpMethod,
    path: Path,
    body: unknown,
    ok: number[],
  ): Promise<Cob> {
    return this.callFor(operation, validateCob, method, path, body, ok);
  }

  private callForCobv(
    operation: string,
    method: Dispatcher.HttpMethod,
    path: Path,
    body: unknown,
    ok: number[],
  ): Promise<Cob> {
    return this.callFor(operation, validateCobv, method, path, body, ok, this.due());
  }

  /** A call whose answer is checked before anything relies on it; an unusable one counts as PSP unavailability. */
  private async callFor<T>(
    operation: string,
    validate: (body: unknown) => Checked<T>,
    method: Dispatcher.HttpMethod,
    path: Path,
    body: unknown,
    ok: number[],
    session?: CallSession,
  ): Promise<T> {
    const checked = validate(await this.call(operation, method, path, body, ok, session));
    if ('reason' in checked)
      throw new PspError(
        'unavailable',
        null,
        `PSP sent an unusable answer to ${operation}: ${checked.reason}`,
      );
    return checked.value;
  }

  /** `operation` names the call in metrics (`pix_psp_request_duration_seconds`). */
  private call(
    operation: string,
    method: Dispatcher.HttpMethod,
    path: Path,
    body: unknown,
    ok: number[],
    session: CallSession = { dispatcher: this.dispatcher, token: this.token },
  ): Promise<unknown> {
    return withRetry(this.retryPolicy, async () => {
      const reply = await sendAuthorized(session.dispatcher, session.token, {
        operation,
        method,
        url: withQuery(`${this.config.baseUrl}${this.config.pathPrefix}${path}`, this.extras.query),
        headers: this.extras.headers,
        body,
        timeoutMs: this.config.timeoutMs,
      });
      if (ok.includes(reply.status)) return reply.body;
      const error = pspErrorFromResponse(reply.status, reply.body, reply.retryAfter);
      if (error.retryable) this.deps.logger?.warn({ method, path, status: reply.status }, 'PSP unavailable');
      throw error;
    });
  }
}

/** The `hoje` of the simulator's answer about a recurrence's clock. */
function todayIn(body: unknown): string {
  const hoje = (body as { hoje?: unknown } | null)?.hoje;
  if (typeof hoje !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(hoje))
    throw new PspError('unavailable', null, 'PSP sent no hoje for the recurrence clock');
  return hoje;
}

/** Runs a call about the Pix key `chave`: a PspError it throws shows the key masked (it reaches logs). */
async function maskingPixKey<T>(chave: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw error instanceof PspError ? error.withPixKeyMasked(chave) : error;
  }
}

/** API Pix `valorPerc` or `original` as a number of hundredths ("2.0" and "2.00" are one value). */
const hundredths = (value: unknown): number | null =>
  typeof value === 'string' && /^\d+(\.\d{1,2})?$/.test(value) ? Math.round(Number(value) * 100) : null;

/** A cobv's rules and debtor as comparable values: every part the PSP echoes of what we sent. */
function dueChargeTerms(body: {
  calendario: object;
  valor: object;
  chave: string;
  devedor?: unknown;
  solicitacaoPagador?: string;
}): string {
  const calendario = body.calendario as { dataDeVencimento?: string; validadeAposVencimento?: number };
  const valor = body.valor as Record<string, unknown>;
  const rule = (name: string) => {
    const given = valor[name] as
      | {
          modalidade?: number;
          valorPerc?: string;
          descontoDataFixa?: Array<{ data: string; valorPerc: string }>;
        }
      | undefined;
    if (!given) return null;
    return {
      modalidade: Number(given.modalidade),
      valorPerc: given.valorPerc === undefined ? null : hundredths(given.valorPerc),
      datas: (given.descontoDataFixa ?? []).map((tier) => [tier.data, hundredths(tier.valorPerc)]),
    };
  };
  const devedor = (body.devedor ?? {}) as { cpf?: string; cnpj?: string; nome?: string };
  return JSON.stringify({
    vencimento: calendario.dataDeVencimento,
    // API Pix's own default when a PSP leaves it out of its answer.
    validade: calendario.validadeAposVencimento ?? 30,
    original: hundredths(valor.original),
    multa: rule('multa'),
    juros: rule('juros'),
    abatimento: rule('abatimento'),
    desconto: rule('desconto'),
    chave: body.chave,
    devedor: [devedor.cpf ?? null, devedor.cnpj ?? null, devedor.nome?.trim() ?? null],
    solicitacaoPagador: body.solicitacaoPagador ?? null,
  });
}

/**
 * Whether the cobv the PSP has under our txid is the one we asked for: the whole body we send (the due date and days
 * after it, the original and every rule, the key, the debtor, the payer's message), not only its amount and date.
 */
export function sameDueCharge(existing: Cob, input: CreateDueChargeInput): boolean {
  return dueChargeTerms(existing) === dueChargeTerms(input);
}
