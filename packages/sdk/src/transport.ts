import { randomUUID } from 'node:crypto';
import { GatewayConnectionError, GatewayError } from './errors';
import { routePath, type Route } from './routes';
import type { RequestOptions } from './types';

export interface TransportSettings {
  apiKey: string;
  baseUrl: string;
  maxRetries: number;
  timeoutMs: number;
  maxRetryDelayMs: number;
  fetch: typeof fetch;
}

export type Query = Readonly<Record<string, string | number | undefined>>;

export interface Call {
  route: Route;
  params?: Readonly<Record<string, string>>;
  query?: Query;
  body?: unknown;
  options?: RequestOptions;
  /**
   * DELETE: the answer when a retry finds the resource gone (404) after an attempt whose answer was lost, which is
   * then what deleted it. Without it, that 404 is thrown.
   */
  goneAnswer?: unknown;
  /** A route that answers text, not JSON (a CSV statement): the media type asked for; the answer is its text. */
  accept?: string;
}

/** First retry after about half a second, doubling, never more than 8 s apart. */
const BACKOFF_BASE_MS = 500;
const BACKOFF_CAP_MS = 8000;

/**
 * One call to the gateway with its retries. Safe to retry: 429 and 503 (the gateway applied nothing, or applies it once
 * under the same Idempotency-Key), and a lost connection or timeout, while sending or while reading the answer, on
 * every method but PATCH (POSTs carry a key the gateway dedupes on; GET is safe; a DELETE that finds the resource gone
 * on its retry answers `goneAnswer`; a PATCH may have been applied and has no key).
 */
export class Transport {
  constructor(private readonly settings: TransportSettings) {}

  async send<T>(call: Call): Promise<T> {
    const { route, options = {} } = call;
    const idempotencyKey = route.method === 'POST' ? (options.idempotencyKey ?? randomUUID()) : null;
    const url = this.url(call);
    const headers: Record<string, string> = {
      'x-api-key': this.settings.apiKey,
      accept: call.accept ?? 'application/json',
    };
    if (idempotencyKey !== null) headers['idempotency-key'] = idempotencyKey;
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    if (body !== undefined) headers['content-type'] = 'application/json';
    const maxRetries = options.maxRetries ?? this.settings.maxRetries;
    const timeoutMs = options.timeoutMs ?? this.settings.timeoutMs;

    // Whether an earlier attempt may have been applied though its answer was lost (reset, timeout).
    let answerLost = false;
    for (let attempt = 0; ; attempt += 1) {
      const retriesLeft = attempt < maxRetries;
      let response: Response;
      let text: string;
      try {
        const timeout = AbortSignal.timeout(timeoutMs);
        response = await this.settings.fetch(url, {
          method: route.method,
          headers,
          body,
          signal: options.signal ? AbortSignal.any([options.signal, timeout]) : timeout,
        });
        // The body is part of the answer: a connection that breaks (or times out) while it is read gave none.
        text = await response.text();
      } catch (err) {
        // The caller's own abort ends the call as it asked; anything else is a connection that gave no answer.
        if (options.signal?.aborted) throw err;
        if (retriesLeft && route.method !== 'PATCH') {
          answerLost = true;
          await sleep(backoffMs(attempt), options.signal);
          continue;
        }
        throw new GatewayConnectionError(
          `${route.method} ${url}: no answer from the gateway (${describe(err)})`,
          idempotencyKey,
          { cause: err },
        );
      }
      if (response.ok) return (call.accept === undefined ? JSON.parse(text) : text) as T;
      // A retried DELETE that finds nothing: the attempt whose answer was lost deleted it.
      if (answerLost && route.method === 'DELETE' && response.status === 404 && call.goneAnswer !== undefined)
        return call.goneAnswer as T;

      const error = gatewayError(response, text, idempotencyKey);
      if (retriesLeft && (response.status === 429 || response.status === 503)) {
        const waitMs = error.retryAfterSeconds === null ? backoffMs(attempt) : error.retryAfterSeconds * 1000;
        // A wait longer than the caller allows is theirs to decide: they get the error with its retryAfterSeconds.
        if (waitMs <= this.settings.maxRetryDelayMs) {
          await sleep(waitMs, options.signal);
          continue;
        }
      }
      throw error;
    }
  }

  private url(call: Call): string {
    const url = new URL(`${this.settings.baseUrl}${routePath(call.route, call.params ?? {})}`);
    for (const [name, value] of Object.entries(call.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    return url.toString();
  }
}

function gatewayError(response: Response, text: string, idempotencyKey: string | null): GatewayError {
  const details = {
    status: response.status,
    requestId: response.headers.get('x-request-id'),
    retryAfterSeconds: retryAfterSeconds(response.headers.get('retry-after')),
    idempotencyKey,
  };
  try {
    const { error } = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    if (typeof error?.code === 'string')
      return new GatewayError(error.code, typeof error.message === 'string' ? error.message : '', details);
  } catch {
    // Not the contract's JSON (a proxy's page): described by its status below.
  }
  return new GatewayError(`HTTP_${response.status}`, text.slice(0, 200), details);
}

/** RFC 9110's IMF-fixdate, the HTTP date a server sends: `Sun, 06 Nov 1994 08:49:37 GMT`. */
const IMF_FIXDATE =
  /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/**
 * `Retry-After` (RFC 9110): delay-seconds, a whole number, or an IMF-fixdate. Anything else (`1.5`, `-1`, a date in
 * another format) is ignored rather than guessed at: the call backs off as if there were no header.
 */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | null {
  if (header === null) return null;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value);
  if (!IMF_FIXDATE.test(value)) return null;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

/** Exponential with jitter, so clients that failed together do not retry together. */
function backoffMs(attempt: number): number {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `${err.message}${cause}`;
}
