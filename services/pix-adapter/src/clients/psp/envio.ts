import Joi from 'joi';
import { Agent, type Dispatcher } from 'undici';
import { balanceToCentavos, centavosToPixAmount, pixAmountToCentavos } from '../../domain/amount';
import { ID_ENVIO_PATTERN } from '../../domain/id-envio';
import { type ApiPixClientDeps } from './api-pix-client';
import { type Checked } from './cob';
import { type HttpReply, send } from './http';
import { ClientCredentialsToken } from './oauth-token';
import { PspError, isPspRefusal, pspErrorFromResponse } from './psp-error';
import { type RetryPolicy, withRetry } from './retry';

/**
 * The payout port: Pix sent from the platform's account, following Efí's documented "envio de Pix", since the BCB's
 * API Pix has no payout operation.
 * - `PUT /v3/gn/pix/:idEnvio` (scope `pix.send`): https://dev.efipay.com.br/docs/api-pix/envio-pagamento-pix/
 * - `GET /v2/gn/pix/enviados/id-envio/:idEnvio` (scope `gn.pix.send.read`): the same page.
 * - `GET /v2/gn/saldo` (scope `gn.balance.read`): https://dev.efipay.com.br/docs/api-pix/endpoints-exclusivos-efi/
 * - the send's callback on the payer key's webhook: https://dev.efipay.com.br/docs/api-pix/webhooks/
 */
export const ENVIO_SCOPES = 'pix.send gn.pix.send.read gn.balance.read';

export type SentPixStatus = 'EM_PROCESSAMENTO' | 'REALIZADO' | 'NAO_REALIZADO';

export interface SendPixInput {
  /** Derived from the payout (`idEnvioOf`), so a repeated send names the same one. */
  idEnvio: string;
  amountCentavos: number;
  /** The platform account's own Pix key, which pays (Efí `pagador.chave`; it must have a webhook). */
  payerKey: string;
  destination: {
    pixKey: string;
    /** CPF (11 digits) or CNPJ (14): the PSP refuses the send when the key belongs to someone else. */
    holderDocument?: string;
  };
  /** Shown to the receiver (Efí `pagador.infoPagador`, at most 140 characters). */
  message?: string;
}

/** Why a send failed after the PSP took it (Efí `gnExtras.erro`): ISO 20022 reason code, who refused, why. */
export interface SentPixFailure {
  code: string;
  origin: string;
  reason: string;
}

/** A send as the PSP has it now. */
export interface SentPix {
  idEnvio: string;
  endToEndId: string;
  amountCentavos: number;
  status: SentPixStatus;
  /** Known from reads and callbacks; the answer to the send does not repeat it. */
  destinationKey?: string;
  requestedAt?: string;
  settledAt?: string;
  failure?: SentPixFailure;
}

/** A refusal that will be the same next time: the payout fails now; nothing was sent. */
export type PayoutRefusalReason =
  | 'insufficient_balance'
  | 'invalid_key'
  | 'key_holder_mismatch'
  | 'denied'
  | 'account_blocked'
  | 'id_envio_conflict'
  | 'invalid_request';

export interface PayoutRefusal {
  reason: PayoutRefusalReason;
  detail: string;
}

// Efí's error names for a send (the envio page above), and `saldo_insuficiente`, its name for an account that cannot
// cover a transaction (https://dev.efipay.com.br/docs/api-open-finance/devolucao/; the envio page lists none).
const REFUSAL_REASONS: Record<string, PayoutRefusalReason> = {
  saldo_insuficiente: 'insufficient_balance',
  chave_invalida: 'invalid_key',
  chave_nao_pertence_ao_documento: 'key_holder_mismatch',
  pagamento_negado: 'denied',
  documento_bloqueado: 'account_blocked',
};

/**
 * A failure of `sendPix` that will fail again (insufficient balance, invalid key...) as a refusal; undefined for one
 * that may pass (5xx, 429, timeout, no answer, a token refused): then the send may or may not have happened, and its
 * state is read with `readSentPix` (its idEnvio never sends twice), never guessed.
 */
export function payoutRefusalOf(error: unknown): PayoutRefusal | undefined {
  if (!isPspRefusal(error)) return undefined;
  const reason =
    error.kind === 'conflict'
      ? 'id_envio_conflict'
      : (REFUSAL_REASONS[error.extra.name ?? ''] ?? 'invalid_request');
  return { reason, detail: error.detail };
}

export interface PixPayoutPortConfig {
  /** e.g. `https://pix.api.efipay.com.br`, without trailing slash. */
  baseUrl: string;
  oauthTokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** OAuth scopes asked for (space-separated); default `ENVIO_SCOPES`. */
  scope?: string;
  /** Client certificate Efí requires (PEM strings). */
  mTLS?: { cert: string; key: string; ca?: string };
  timeoutMs: number;
  maxRetries: number;
}

/**
 * Sends Pix from the platform's account and reads them back, with the same HTTP exchange, OAuth token, retry and error
 * classification as the API Pix client. A send whose answer is lost is retried under the same idEnvio: the PSP refuses
 * the second (409 `id_envio_duplicado`) and the send is read back by its idEnvio, so it is never made twice.
 */
export class PixPayoutPort {
  private readonly dispatcher: Dispatcher;
  private readonly token: ClientCredentialsToken;
  private readonly retryPolicy: RetryPolicy;

  constructor(
    private readonly config: PixPayoutPortConfig,
    private readonly deps: ApiPixClientDeps = {},
  ) {
    this.dispatcher = new Agent({ connect: config.mTLS ? { ...config.mTLS } : undefined });
    this.token = new ClientCredentialsToken(
      { ...config, scope: config.scope ?? ENVIO_SCOPES },
      this.dispatcher,
      deps.now ?? Date.now,
    );
    this.retryPolicy = {
      maxRetries: config.maxRetries,
      baseDelayMs: deps.retryBaseDelayMs ?? 200,
      maxDelayMs: deps.retryMaxDelayMs ?? 5000,
      sleep: deps.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
      random: deps.random ?? Math.random,
    };
  }

  /**
   * `PUT /v3/gn/pix/:idEnvio`: asks the PSP to send. Answers the send, EM_PROCESSAMENTO (its outcome comes by callback
   * or `readSentPix`). A send already made under this idEnvio (a retry whose first answer was lost) is read back and
   * returned when it is the same (amount and destination); otherwise the refusal stands.
   */
  async sendPix(input: SendPixInput): Promise<SentPix> {
    try {
      return await this.putEnvio(input);
    } catch (error) {
      // A PSP may echo the keys it refuses; errors reach logs.
      throw error instanceof PspError
        ? error.withPixKeyMasked(input.payerKey).withPixKeyMasked(input.destination.pixKey)
        : error;
    }
  }

  private async putEnvio(input: SendPixInput): Promise<SentPix> {
    if (!ID_ENVIO_PATTERN.test(input.idEnvio)) throw new Error(`not an idEnvio: "${input.idEnvio}"`);
    if (!Number.isSafeInteger(input.amountCentavos) || input.amountCentavos <= 0)
      throw new Error(`a payout sends a positive number of centavos, not ${input.amountCentavos}`);
    const { pixKey, holderDocument } = input.destination;
    const body = {
      valor: centavosToPixAmount(input.amountCentavos),
      pagador: {
        chave: input.payerKey,
        ...(input.message === undefined ? {} : { infoPagador: input.message }),
      },
      favorecido: {
        chave: pixKey,
        ...(holderDocument === undefined
          ? {}
          : holderDocument.length === 14
            ? { cnpj: holderDocument }
            : { cpf: holderDocument }),
      },
    };
    try {
      const accepted = await this.callFor(
        'envio.send',
        validateAccepted,
        'PUT',
        `/v3/gn/pix/${input.idEnvio}`,
        body,
        [200, 201],
      );
      return { ...accepted, destinationKey: pixKey };
    } catch (error) {
      if (!(error instanceof PspError) || error.kind !== 'conflict') throw error;
      const existing = await this.readSentPix(input.idEnvio);
      if (
        existing === undefined ||
        existing.amountCentavos !== input.amountCentavos ||
        existing.destinationKey !== pixKey
      )
        throw error;
      return existing;
    }
  }

  /** `GET /v2/gn/pix/enviados/id-envio/:idEnvio`: the send as it stands, or undefined when the PSP has none. */
  async readSentPix(idEnvio: string): Promise<SentPix | undefined> {
    if (!ID_ENVIO_PATTERN.test(idEnvio)) throw new Error(`not an idEnvio: "${idEnvio}"`);
    try {
      return await this.callFor(
        'envio.read',
        validateSentPix,
        'GET',
        `/v2/gn/pix/enviados/id-envio/${idEnvio}`,
        undefined,
        [200],
      );
    } catch (error) {
      if (error instanceof PspError && error.kind === 'not_found') return undefined;
      throw error;
    }
  }

  /** `GET /v2/gn/saldo`: the account's balance, in centavos. */
  async readBalance(): Promise<number> {
    return this.callFor('balance.read', validateBalance, 'GET', '/v2/gn/saldo', undefined, [200]);
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }

  /** A call whose answer is checked before anything relies on it; an unusable one counts as PSP unavailability. */
  private async callFor<T>(
    operation: string,
    validate: (body: unknown) => Checked<T>,
    method: Dispatcher.HttpMethod,
    path: `/${string}`,
    body: unknown,
    ok: number[],
  ): Promise<T> {
    const answer = await withRetry(this.retryPolicy, async () => {
      const reply = await this.authorizedSend(operation, method, path, body);
      if (ok.includes(reply.status)) return reply.body;
      const error = pspErrorFromResponse(reply.status, reply.body, reply.retryAfter);
      if (error.retryable) this.deps.logger?.warn({ operation, status: reply.status }, 'PSP unavailable');
      throw error;
    });
    const checked = validate(answer);
    if ('reason' in checked)
      throw new PspError(
        'unavailable',
        null,
        `PSP sent an unusable answer to ${operation}: ${checked.reason}`,
      );
    return checked.value;
  }

  /** Sends with the cached token; a 401 means the PSP dropped it early, so one fresh token is tried. */
  private async authorizedSend(
    operation: string,
    method: Dispatcher.HttpMethod,
    path: `/${string}`,
    body: unknown,
  ): Promise<HttpReply> {
    const attempt = async (): Promise<HttpReply> =>
      send(this.dispatcher, {
        operation,
        method,
        url: `${this.config.baseUrl}${path}`,
        headers: {
          authorization: `Bearer ${await this.token.get()}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        timeoutMs: this.config.timeoutMs,
      });
    const reply = await attempt();
    if (reply.status !== 401) return reply;
    this.token.invalidate();
    return attempt();
  }
}

const amount = Joi.string().pattern(/^\d{1,10}\.\d{2}$/);
const status = Joi.string().valid('EM_PROCESSAMENTO', 'REALIZADO', 'NAO_REALIZADO');
const erroSchema = Joi.object({
  codigo: Joi.string().required(),
  origem: Joi.string().allow(''),
  motivo: Joi.string().allow(''),
}).unknown(true);

// 201: `{idEnvio, e2eId, valor, horario: {solicitacao}, status}`.
const acceptedSchema = Joi.object({
  idEnvio: Joi.string().pattern(ID_ENVIO_PATTERN).required(),
  e2eId: Joi.string().required(),
  valor: amount.required(),
  horario: Joi.object({ solicitacao: Joi.string().isoDate() }).unknown(true),
  status: status.required(),
}).unknown(true);

// 200: `{endToEndId, idEnvio, valor, chave, status, horario: {solicitacao, liquidacao?}, favorecido: {chave | contaBanco}}`.
const sentPixSchema = Joi.object({
  endToEndId: Joi.string().required(),
  idEnvio: Joi.string().pattern(ID_ENVIO_PATTERN).required(),
  valor: amount.required(),
  status: status.required(),
  horario: Joi.object({ solicitacao: Joi.string().isoDate(), liquidacao: Joi.string().isoDate() }).unknown(
    true,
  ),
  favorecido: Joi.object({ chave: Joi.string() }).unknown(true),
  gnExtras: Joi.object({ erro: erroSchema }).unknown(true),
}).unknown(true);

// A callback item of a send: `{endToEndId, chave, tipo: "SOLICITACAO", status, valor, horario, gnExtras: {idEnvio, erro?}}`.
const callbackItemSchema = Joi.object({
  endToEndId: Joi.string().required(),
  tipo: Joi.string().valid('SOLICITACAO').required(),
  status: status.required(),
  valor: amount.required(),
  horario: Joi.string().isoDate().allow(null),
  gnExtras: Joi.object({
    idEnvio: Joi.string().pattern(ID_ENVIO_PATTERN).required(),
    erro: erroSchema,
  })
    .unknown(true)
    .required(),
}).unknown(true);

const balanceSchema = Joi.object({ saldo: Joi.string().required() }).unknown(true);

interface ErroBody {
  codigo: string;
  origem?: string;
  motivo?: string;
}

function failureOf(erro: ErroBody | undefined): { failure?: SentPixFailure } {
  return erro === undefined
    ? {}
    : { failure: { code: erro.codigo, origin: erro.origem ?? '', reason: erro.motivo ?? '' } };
}

function check<T>(schema: Joi.Schema, body: unknown, read: (value: never) => T): Checked<T> {
  const { value, error } = schema.validate(body, { abortEarly: false, convert: false });
  return error ? { reason: error.message } : { value: read(value as never) };
}

function validateAccepted(body: unknown): Checked<SentPix> {
  return check(
    acceptedSchema,
    body,
    (value: {
      idEnvio: string;
      e2eId: string;
      valor: string;
      status: SentPixStatus;
      horario?: { solicitacao?: string };
    }) => ({
      idEnvio: value.idEnvio,
      endToEndId: value.e2eId,
      amountCentavos: pixAmountToCentavos(value.valor),
      status: value.status,
      ...(value.horario?.solicitacao === undefined ? {} : { requestedAt: value.horario.solicitacao }),
    }),
  );
}

function validateSentPix(body: unknown): Checked<SentPix> {
  return check(
    sentPixSchema,
    body,
    (value: {
      endToEndId: string;
      idEnvio: string;
      valor: string;
      status: SentPixStatus;
      horario?: { solicitacao?: string; liquidacao?: string };
      favorecido?: { chave?: string };
      gnExtras?: { erro?: ErroBody };
    }) => ({
      idEnvio: value.idEnvio,
      endToEndId: value.endToEndId,
      amountCentavos: pixAmountToCentavos(value.valor),
      status: value.status,
      ...(value.favorecido?.chave === undefined ? {} : { destinationKey: value.favorecido.chave }),
      ...(value.horario?.solicitacao === undefined ? {} : { requestedAt: value.horario.solicitacao }),
      ...(value.horario?.liquidacao === undefined ? {} : { settledAt: value.horario.liquidacao }),
      ...failureOf(value.gnExtras?.erro),
    }),
  );
}

function validateBalance(body: unknown): Checked<number> {
  const checked = check(balanceSchema, body, (value: { saldo: string }) => value.saldo);
  if ('reason' in checked) return checked;
  try {
    return { value: balanceToCentavos(checked.value) };
  } catch (error) {
    return { reason: (error as Error).message };
  }
}

/**
 * The sends a callback tells of (`POST <webhookUrl>/pix`, beside received Pix, which it skips): each item with
 * `tipo: "SOLICITACAO"` and `gnExtras.idEnvio`, read alone so a malformed one does not hide the others.
 */
export function parseSentPixCallback(body: unknown): { sent: SentPix[]; rejected: string[] } {
  const list = Array.isArray(body)
    ? body
    : typeof body === 'object' && body !== null && Array.isArray((body as { pix?: unknown }).pix)
      ? ((body as { pix: unknown[] }).pix as unknown[])
      : undefined;
  if (list === undefined)
    return { sent: [], rejected: ['callback body is neither {"pix": [...]} nor an array'] };
  const result: { sent: SentPix[]; rejected: string[] } = { sent: [], rejected: [] };
  for (const item of list) {
    const isSend = typeof item === 'object' && item !== null && 'gnExtras' in item && 'tipo' in item;
    if (!isSend) continue;
    const checked = check(
      callbackItemSchema,
      item,
      (value: {
        endToEndId: string;
        status: SentPixStatus;
        valor: string;
        horario?: string | null;
        gnExtras: { idEnvio: string; erro?: ErroBody };
      }) => ({
        idEnvio: value.gnExtras.idEnvio,
        endToEndId: value.endToEndId,
        amountCentavos: pixAmountToCentavos(value.valor),
        status: value.status,
        ...(typeof value.horario === 'string' && value.status === 'REALIZADO'
          ? { settledAt: value.horario }
          : {}),
        ...failureOf(value.gnExtras.erro),
      }),
    );
    if ('reason' in checked) result.rejected.push(checked.reason);
    else result.sent.push(checked.value);
  }
  return result;
}
