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
}

/** First retry after about half a second, doubling, never more than 8 s apart. */
const BACKOFF_BASE_MS = 500;
const BACKOFF_CAP_MS = 8000;

/**
 * One call to the gateway with its retries. Safe to retry: 429 and 503 (the gateway applied nothing, or applies it once
 * under the same Idempotency-Key), and a lost connection or timeout on every method but PATCH (POSTs carry a key the
 * gateway dedupes on; GET and DELETE are idempotent; a PATCH may have been applied and has no key).
 */
export class Transport {
  constructor(private readonly settings: TransportSettings) {}

  async send<T>(call: Call): Promise<T> {
    const { route, options = {} } = call;
    const idempotencyKey = route.method === 'POST' ? (options.idempotencyKey ?? randomUUID()) : null;
    const url = this.url(call);
    const headers: Record<string, string> = { 'x-api-key': this.settings.apiKey, accept: 'application/json' };
    if (idempotencyKey !== null) headers['idempotency-key'] = idempotencyKey;
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    if (body !== undefined) headers['content-type'] = 'application/json';
    const maxRetries = options.maxRetries ?? this.settings.maxRetries;
    const timeoutMs = options.timeoutMs ?? this.settings.timeoutMs;

    for (let attempt = 0; ; attempt += 1) {
      const retriesLeft = attempt < maxRetries;
      let response: Response;
      try {
        const timeout = AbortSignal.timeout(timeoutMs);
        response = await this.settings.fetch(url, {
          method: route.method,
          headers,
          body,
          signal: options.signal ? AbortSignal.any([options.signal, timeout]) : timeout,
        });
      } catch (err) {
        // The caller's own abort ends the call as it asked; anything else is a connection that gave no answer.
        if (options.signal?.aborted) throw err;
        if (retriesLeft && route.method !== 'PATCH') {
          await sleep(backoffMs(attempt), options.signal);
          continue;
        }
        throw new GatewayConnectionError(
          `${route.method} ${url}: no answer from the gateway (${describe(err)})`,
          idempotencyKey,
          { cause: err },
        );
      }
      if (response.ok) return (await response.json()) as T;

      const error = await gatewayError(response, idempotencyKey);
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

async function gatewayError(response: Response, idempotencyKey: string | null): Promise<GatewayError> {
  const text = await response.text();
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

/** `Retry-After` in seconds or as an HTTP date. */
function retryAfterSeconds(header: string | null): number | null {
  if (header === null) return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - Date.now()) / 1000));
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
