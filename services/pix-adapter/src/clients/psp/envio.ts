import Joi from 'joi';
import type { Dispatcher } from 'undici';
import { balanceToCentavos, centavosToPixAmount, pixAmountToCentavos } from '../../domain/amount';
import { ID_ENVIO_PATTERN } from '../../domain/id-envio';
import { type PspProfile, type PspProfileSettings } from '../../domain/psp-profiles';
import { type ApiPixClientDeps, type ClientCertificate, pspSession } from './api-pix-client';
import { type Checked } from './cob';
import { sendAuthorized } from './http';
import { type ListedSentPix, listQuery, readAllPages, validateSentPage } from './pix-lists';
import type { ClientCredentialsToken } from './oauth-token';
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
const MAX_REMEMBERED_FAILURES = 10_000;

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
    /** CPF (`^\d{11}$`) or CNPJ (`^\d{14}$`), digits only: the PSP refuses the send when the key is someone else's. */
    holderDocument?: string;
  };
  /** Shown to the receiver (Efí `pagador.infoPagador`, at most 140 characters, no NUL). */
  message?: string;
}

/**
 * Why a send failed after the PSP took it (Efí `gnExtras.erro`, in the callback only): ISO 20022 reason code, who
 * refused, why.
 */
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
  /** Set when the PSP shows the send went to bank account data (`favorecido.contaBanco`), not to a key. */
  destinationBankAccount?: boolean;
  requestedAt?: string;
  settledAt?: string;
  /** From a callback (Efí's reads do not tell it): on a read, only once `learnFromCallback` heard it. */
  failure?: SentPixFailure;
}

/**
 * A refusal that will be the same next time: the payout fails now, and nothing was sent. `sendPix` lets a refusal through
 * only once a read by its idEnvio found no send (404), so "nothing was sent" holds for every one.
 */
export type PayoutRefusalReason =
  | 'insufficient_balance'
  | 'invalid_key'
  | 'key_holder_mismatch'
  | 'denied'
  | 'account_blocked'
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
 * Efí names the payer's side in its words, not in `nome`: `chave_invalida` is also its answer for a `pagador.chave`
 * that is not the authenticated account's ("A chave informada não faz referência à conta Efí autenticada", the envio
 * page above). A missing webhook on the payer key (Efí requires one to send) is the account's too.
 */
function isPayerMisconfiguration(error: PspError): boolean {
  const name = error.extra.name ?? '';
  if (name === 'webhook_nao_encontrado') return true;
  return name === 'chave_invalida' && /conta Ef[ií] autenticada|pagador/i.test(error.detail);
}

/**
 * The platform account itself is set up wrong (its payer key is not the account's, or has no webhook): the payout is
 * not refused (nothing about it is wrong, and it will pass once an operator fixes the account) but held and retried,
 * with an alert. Nothing was sent.
 */
export interface PayerMisconfigured {
  reason: 'payer_misconfigured';
  detail: string;
}

export function payerMisconfigurationOf(error: unknown): PayerMisconfigured | undefined {
  if (!isPspRefusal(error) || !isPayerMisconfiguration(error)) return undefined;
  return { reason: 'payer_misconfigured', detail: error.detail };
}

/**
 * A failure of `sendPix` that will fail again (insufficient balance, invalid key...) as a refusal; undefined for one
 * that may pass (5xx, 429, timeout, no answer, a token refused, the payer account misconfigured: see
 * `payerMisconfigurationOf`) and for a `PayoutConflict`: then the send may or may not have happened, and its state is
 * read with `readSentPix` (its idEnvio never sends twice), never guessed.
 */
export function payoutRefusalOf(error: unknown): PayoutRefusal | undefined {
  if (!isPspRefusal(error) || error.kind === 'conflict' || error.kind === 'not_found') return undefined;
  if (isPayerMisconfiguration(error)) return undefined;
  return { reason: REFUSAL_REASONS[error.extra.name ?? ''] ?? 'invalid_request', detail: error.detail };
}

/**
 * How the send the PSP holds under an idEnvio differs from the one asked for under it (its amount, its destination),
 * in words; undefined when it is that send. A send to bank account data is never one asked for by Pix key.
 */
export function sendDifferences(
  asked: { amountCentavos: number; pixKey: string },
  existing: SentPix,
): string | undefined {
  const differences: string[] = [];
  if (existing.amountCentavos !== asked.amountCentavos)
    differences.push(`amount ${existing.amountCentavos} centavos, not ${asked.amountCentavos}`);
  if (existing.destinationBankAccount) differences.push('sent to bank account data, not to a Pix key');
  else if (
    existing.destinationKey !== undefined &&
    normalisePixKey(existing.destinationKey) !== normalisePixKey(asked.pixKey)
  )
    differences.push('sent to another Pix key');
  return differences.length > 0 ? differences.join('; ') : undefined;
}

/**
 * A send exists under this idEnvio but is not the one asked for (another amount or destination): money may have left,
 * so this is no refusal. The payout needs an operator's review; `existing` is the send as the PSP has it.
 */
export class PayoutConflict extends Error {
  constructor(
    readonly idEnvio: string,
    readonly existing: SentPix,
    readonly detail: string,
  ) {
    super(`a send already exists under idEnvio ${idEnvio} and differs from this payout: ${detail}`);
    this.name = 'PayoutConflict';
  }
}

/** A Pix key as DICT compares it: no surrounding spaces, case-insensitive, a CPF/CNPJ/phone by its digits. */
export function normalisePixKey(chave: string): string {
  const trimmed = chave.trim().toLowerCase();
  const digits = trimmed.replace(/[\s.\-/()]/g, '');
  return /^\+?\d+$/.test(digits) ? digits : trimmed;
}

const CPF = /^\d{11}$/;
const CNPJ = /^\d{14}$/;
const MAX_CENTAVOS = 999_999_999_999;

/** What Efí takes, checked before anything is sent (a send refused for its input is no use to anyone). */
function checkInput(input: SendPixInput): void {
  if (!ID_ENVIO_PATTERN.test(input.idEnvio)) throw new Error(`not an idEnvio: "${input.idEnvio}"`);
  if (
    !Number.isSafeInteger(input.amountCentavos) ||
    input.amountCentavos < 1 ||
    input.amountCentavos > MAX_CENTAVOS
  )
    throw new Error(`a payout sends 1 to ${MAX_CENTAVOS} centavos, not ${input.amountCentavos}`);
  const { holderDocument, pixKey } = input.destination;
  if (pixKey.trim() === '' || pixKey.length > 77 || pixKey.includes('\0'))
    throw new Error('a destination Pix key has 1 to 77 characters, without NUL');
  if (holderDocument !== undefined && !CPF.test(holderDocument) && !CNPJ.test(holderDocument))
    throw new Error('a holder document is a CPF (11 digits) or a CNPJ (14 digits), digits only');
  if (input.message !== undefined && (input.message.length > 140 || input.message.includes('\0')))
    throw new Error('a payout message has at most 140 characters, without NUL');
}

export interface PixPayoutPortConfig {
  /** e.g. `https://pix.api.efipay.com.br`, without trailing slash. */
  baseUrl: string;
  oauthTokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** OAuth scopes asked for (space-separated); default `ENVIO_SCOPES`. */
  scope?: string;
  /** Client certificate Efí requires (PEM strings, or its .p12 with the passphrase). */
  mTLS?: ClientCertificate;
  /** The PSP's profile, for its token request (the same credentials as API Pix); default the baseline. */
  profile?: PspProfile;
  /** The values the profile's extra headers and query parameters take, as for API Pix. */
  profileSettings?: PspProfileSettings;
  timeoutMs: number;
  maxRetries: number;
}

/**
 * Sends Pix from the platform's account and reads them back, with the same HTTP exchange, OAuth token, retry and error
 * classification as the API Pix client. A send whose answer is lost is retried under the same idEnvio: the PSP refuses
 * the second (409 `id_envio_duplicado`, or any other refusal) and the send is read back by its idEnvio, so it is never
 * made twice, nor taken for refused while it was made.
 */
export class PixPayoutPort {
  private readonly dispatcher: Dispatcher;
  private readonly token: ClientCredentialsToken;
  private readonly retryPolicy: RetryPolicy;
  private readonly failures = new Map<string, SentPixFailure>();

  constructor(
    private readonly config: PixPayoutPortConfig,
    private readonly deps: ApiPixClientDeps = {},
  ) {
    ({
      dispatcher: this.dispatcher,
      token: this.token,
      retryPolicy: this.retryPolicy,
    } = pspSession(config, deps, ENVIO_SCOPES));
  }

  /**
   * `PUT /v3/gn/pix/:idEnvio`: asks the PSP to send. Answers the send, EM_PROCESSAMENTO (its outcome comes by callback
   * or `readSentPix`). Any refusal (409 `id_envio_duplicado` or another) may answer a retry whose first send was
   * carried out and its answer lost, so the send is read back by its idEnvio first:
   * - none (404): nothing was sent, the refusal stands (a 409 with none is unknown: retryable, never a refusal);
   * - the same amount and destination: that send is returned;
   * - another: `PayoutConflict`, with the send found.
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
    checkInput(input);
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
          : CNPJ.test(holderDocument)
            ? { cnpj: holderDocument }
            : { cpf: holderDocument }),
      },
    };
    let accepted: SentPix;
    try {
      accepted = await this.callFor(
        'envio.send',
        validateAccepted,
        'PUT',
        `/v3/gn/pix/${input.idEnvio}`,
        body,
        [200, 201],
      );
    } catch (error) {
      if (!isPspRefusal(error)) throw error;
      return this.readBackAfterRefusal(input, error);
    }
    if (accepted.idEnvio !== input.idEnvio || accepted.amountCentavos !== input.amountCentavos) {
      // An answer about another send is no answer: what the PSP has under this idEnvio is read.
      this.deps.logger?.warn(
        { operation: 'envio.send', idEnvio: input.idEnvio },
        'PSP answered a send with another idEnvio or amount',
      );
      const existing = await this.readSentPix(input.idEnvio);
      if (existing === undefined)
        throw new PspError(
          'unavailable',
          null,
          'PSP answered a send for another one, and has none under this idEnvio',
        );
      return this.sameOrConflict(input, existing);
    }
    return { ...accepted, destinationKey: pixKey };
  }

  private async readBackAfterRefusal(input: SendPixInput, refusal: PspError): Promise<SentPix> {
    const existing = await this.readSentPix(input.idEnvio);
    if (existing === undefined) {
      if (refusal.kind === 'conflict')
        // The PSP says the idEnvio is used but shows no send under it (yet): unknown, to be tried again.
        throw new PspError(
          'unavailable',
          refusal.status,
          `the idEnvio is used (${refusal.detail}) but no send is readable under it yet`,
          refusal.extra,
        );
      return Promise.reject(refusal);
    }
    return this.sameOrConflict(input, existing);
  }

  private sameOrConflict(input: SendPixInput, existing: SentPix): SentPix {
    const differences = sendDifferences(
      { amountCentavos: input.amountCentavos, pixKey: input.destination.pixKey },
      existing,
    );
    if (differences !== undefined) throw new PayoutConflict(input.idEnvio, existing, differences);
    return existing;
  }

  /**
   * `GET /v2/gn/pix/enviados/id-envio/:idEnvio`: the send as it stands, or undefined when the PSP has none. Efí's read
   * tells the status only; the reason of a failure comes in the callback, and a send this port heard of by callback
   * (`learnFromCallback`) carries it.
   */
  async readSentPix(idEnvio: string): Promise<SentPix | undefined> {
    if (!ID_ENVIO_PATTERN.test(idEnvio)) throw new Error(`not an idEnvio: "${idEnvio}"`);
    let read: SentPix;
    try {
      read = await this.callFor(
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
    if (read.idEnvio !== idEnvio)
      throw new PspError('unavailable', null, 'PSP answered a read of a send with another idEnvio');
    const failure = read.status === 'NAO_REALIZADO' ? this.failures.get(idEnvio) : undefined;
    return failure === undefined ? read : { ...read, failure };
  }

  /**
   * Parses a callback (`parseSentPixCallback`) and keeps the failure reasons it tells, so later reads of those sends
   * carry them (Efí's reads do not). The caller should keep them too (this memory is the process's only).
   */
  learnFromCallback(body: unknown): { sent: SentPix[]; rejected: string[] } {
    const parsed = parseSentPixCallback(body);
    for (const sent of parsed.sent)
      if (sent.failure !== undefined) {
        if (this.failures.size >= MAX_REMEMBERED_FAILURES)
          this.failures.delete(this.failures.keys().next().value as string);
        this.failures.set(sent.idEnvio, sent.failure);
      }
    return parsed;
  }

  /** `GET /v2/gn/pix/enviados?inicio=&fim=`: every send asked for in the period (each page read in turn). */
  listSentPix(inicio: Date, fim: Date): Promise<ListedSentPix[]> {
    return readAllPages((page) =>
      this.callFor(
        'envio.list',
        validateSentPage,
        'GET',
        `/v2/gn/pix/enviados?${listQuery(inicio, fim, page)}`,
        undefined,
        [200],
      ),
    );
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
      const reply = await sendAuthorized(this.dispatcher, this.token, {
        operation,
        method,
        url: `${this.config.baseUrl}${path}`,
        body,
        timeoutMs: this.config.timeoutMs,
      });
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

// 200: `{endToEndId, idEnvio, valor, chave, status, horario: {solicitacao, liquidacao?}, favorecido: {chave,
// identificacao: {nome, cpf (masked)}} | {contaBanco: {nome, cpf (masked), agencia, conta, tipoConta}}}`; no failure
// reason (Efí tells it in the callback).
const sentPixSchema = Joi.object({
  endToEndId: Joi.string().required(),
  idEnvio: Joi.string().pattern(ID_ENVIO_PATTERN).required(),
  valor: amount.required(),
  status: status.required(),
  horario: Joi.object({ solicitacao: Joi.string().isoDate(), liquidacao: Joi.string().isoDate() }).unknown(
    true,
  ),
  favorecido: Joi.object({ chave: Joi.string(), contaBanco: Joi.object().unknown(true) }).unknown(true),
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
      favorecido?: { chave?: string; contaBanco?: unknown };
    }) => ({
      idEnvio: value.idEnvio,
      endToEndId: value.endToEndId,
      amountCentavos: pixAmountToCentavos(value.valor),
      status: value.status,
      ...(value.favorecido?.chave === undefined ? {} : { destinationKey: value.favorecido.chave }),
      ...(value.horario?.solicitacao === undefined ? {} : { requestedAt: value.horario.solicitacao }),
      ...(value.horario?.liquidacao === undefined ? {} : { settledAt: value.horario.liquidacao }),
      ...(value.favorecido?.contaBanco === undefined ? {} : { destinationBankAccount: true }),
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
