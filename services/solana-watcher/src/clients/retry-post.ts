import { STATUS_CODES } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { request } from 'undici';
import { RequestPacer } from './request-pacer';

export interface RetryPolicy {
  /** Attempts for a server error (5xx), a network error or a timeout. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  timeoutMs: number;
  /**
   * How long one request keeps being retried while the server answers 429: rate limits are waited out, they do not
   * use up `maxAttempts`. Past this the 429 is returned (the caller's pass fails; its progress is already saved).
   */
  rateLimitedMaxMs: number;
  /** Injectable for tests; defaults to Math.random. */
  random?: () => number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 6,
  baseDelayMs: 250,
  maxDelayMs: 10_000,
  timeoutMs: 10_000,
  rateLimitedMaxMs: 120_000,
};

/** Retry-After in milliseconds, from seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | null {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** Full-jitter exponential backoff; the server's Retry-After, when given, is a floor. */
export function backoffMs(attempt: number, policy: RetryPolicy, retryAfter: number | null): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  const jittered = Math.floor((policy.random ?? Math.random)() * ceiling);
  return retryAfter === null ? jittered : Math.max(retryAfter, jittered);
}

/**
 * The pause after the n-th 429 in a row: the server's Retry-After when it gives one, otherwise exponential with
 * half-jitter (never near zero: the server just said it is over budget, retrying at once only spends more of it).
 */
export function rateLimitPauseMs(refusals: number, policy: RetryPolicy, retryAfter: number | null): number {
  if (retryAfter !== null) return retryAfter;
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** refusals);
  return Math.floor(ceiling / 2 + ((policy.random ?? Math.random)() * ceiling) / 2);
}

/** What a POST sends: a JSON-RPC body and its headers. */
export interface HttpPost {
  body: string;
  headers?: Readonly<Record<string, string>>;
}

/** An HTTP answer read in full: the few parts of a fetch Response a JSON-RPC client reads. */
export interface HttpAnswer {
  status: number;
  statusText: string;
  ok: boolean;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
}

/**
 * POST paced by `pacer` that waits out 429s (Retry-After honoured, every request of the pacer held back meanwhile)
 * and retries 5xx, network errors and timeouts (`timeoutMs` for the whole attempt: connection, headers and body) up
 * to `maxAttempts`; the last failure is returned or thrown as is.
 *
 * undici's `request`, not `fetch`: fetch wraps every answer in WHATWG streams, which were two thirds of what a client
 * polling its node several times a second left to the old generation (docs/adr/0052). What fetch did besides is done
 * here: compressed answers asked for and decoded, redirects followed (a 307/308 keeps the POST), a user agent sent.
 */
export async function postWithRetry(
  url: string,
  post: HttpPost,
  policy: RetryPolicy,
  pacer: RequestPacer = new RequestPacer(Number.POSITIVE_INFINITY),
): Promise<HttpAnswer> {
  const started = Date.now();
  let refusals = 0;
  for (let attempt = 0; ;) {
    await pacer.turn();
    const last = attempt + 1 >= policy.maxAttempts;
    let retryAfter: number | null = null;
    try {
      const answer = await postOnce(url, post, policy.timeoutMs);
      if (answer.status === 429) {
        const pause = rateLimitPauseMs(refusals++, policy, retryAfterMs(answer.headers.get('retry-after')));
        if (Date.now() + pause - started > policy.rateLimitedMaxMs) return answer;
        pacer.rateLimited(pause);
        continue;
      }
      if (answer.status < 500 || last) {
        if (answer.status < 500) pacer.succeeded();
        return answer;
      }
      retryAfter = retryAfterMs(answer.headers.get('retry-after'));
    } catch (err) {
      if (last) throw err;
    }
    await new Promise((resolve) => setTimeout(resolve, backoffMs(attempt, policy, retryAfter)));
    attempt++;
  }
}

/** Followed as fetch follows them (its limit is 20; a JSON-RPC endpoint that redirects does so once). */
const MAX_REDIRECTIONS = 5;
const USER_AGENT = 'brazil-payment-gateway-solana-watcher';

/** One POST, its answer read in full and decoded within `timeoutMs`. */
async function postOnce(url: string, post: HttpPost, timeoutMs: number): Promise<HttpAnswer> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  try {
    const response = await request(url, {
      method: 'POST',
      headers: { 'accept-encoding': 'gzip, deflate, br', 'user-agent': USER_AGENT, ...post.headers },
      body: post.body,
      signal: abort.signal,
      maxRedirections: MAX_REDIRECTIONS,
    });
    const body = Buffer.from(await response.body.arrayBuffer());
    const { statusCode: status, headers } = response;
    const text = decoded(body, headerValue(headers['content-encoding'])).toString('utf8');
    return {
      status,
      statusText: STATUS_CODES[status] ?? '',
      ok: status >= 200 && status < 300,
      headers: { get: (name) => headerValue(headers[name.toLowerCase()]) },
      text: () => Promise.resolve(text),
    };
  } finally {
    clearTimeout(timer);
  }
}

/** The body as sent before its content codings (applied in the order listed, so undone last first). */
export function decoded(body: Buffer, contentEncoding: string | null): Buffer {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  return codings.reduceRight((bytes, coding) => {
    if (coding === 'gzip' || coding === 'x-gzip') return gunzipSync(bytes);
    if (coding === 'deflate') return inflateSync(bytes);
    if (coding === 'br') return brotliDecompressSync(bytes);
    throw new Error(`the node answered in a content coding not asked for: ${coding}`);
  }, body);
}

function headerValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}
