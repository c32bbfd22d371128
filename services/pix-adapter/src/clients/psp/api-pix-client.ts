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
import { type Checked, type Cob, type PixLocation, validateCob, validateLocation } from './cob';
import { type PixDevolucao, validateDevolucao } from './devolucao';
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

/** API Pix `devedor` of a cob: a person (`cpf`) or a company (`cnpj`), and the name. */
export type Devedor = { cpf: string; nome: string } | { cnpj: string; nome: string };

type Path = `/${string}`;

/**
 * The scopes API Pix ties to the operations this client calls (`PUT/PATCH/GET /cob`, `POST /loc`, `PUT /webhook`,
 * `PUT/GET /pix/{e2eid}/devolucao/{id}`).
 */
export const API_PIX_SCOPES = 'cob.write cob.read payloadlocation.write webhook.write pix.write pix.read';

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

  async close(): Promise<void> {
    await Promise.all([this.dispatcher.close(), this.medSession?.dispatcher.close()]);
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

/** Runs a call about the Pix key `chave`: a PspError it throws shows the key masked (it reaches logs). */
async function maskingPixKey<T>(chave: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw error instanceof PspError ? error.withPixKeyMasked(chave) : error;
  }
}
