import { type Dispatcher, request } from 'undici';
import { histogram, inOutgoingCall, tracerOf } from '@gateway/observability';
import { PspError } from './psp-error';
import { takeFromBudget } from './request-budget';

const tracer = tracerOf('pix-adapter:psp');

const pspRequests = histogram(
  'pix_psp_request_duration_seconds',
  'HTTP exchanges with the PSP, by operation and outcome (ok 2xx; refused 3xx/4xx but 429; unavailable 429/5xx; unreachable: no answer)',
  ['operation', 'outcome'],
  [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
);

export interface HttpCall {
  /** What the exchange is for, a fixed name such as `cob.create` (never the path: it holds ids). */
  operation: string;
  method: Dispatcher.HttpMethod;
  url: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

export interface HttpReply {
  status: number;
  /** Parsed JSON when the PSP sent JSON, otherwise the raw text (or undefined when empty). */
  body: unknown;
  retryAfter: string | undefined;
}

/**
 * One HTTP exchange, in a span that names the PSP's host and the operation only (its URL holds our Pix key, ids and
 * perhaps a token in the base path); a failure before any response (refused, reset, timeout) becomes a retryable
 * PspError, which names the operation, not the URL.
 */
export function send(dispatcher: Dispatcher, call: HttpCall): Promise<HttpReply> {
  const attributes = { 'http.request.method': call.method, 'gateway.psp.operation': call.operation };
  return inOutgoingCall(tracer, `PSP ${call.operation}`, call.url, attributes, async (span) => {
    const reply = await exchange(dispatcher, call);
    span.setAttribute('http.response.status_code', reply.status);
    return reply;
  });
}

/** What `sendAuthorized` needs of a cached OAuth token. */
export interface BearerToken {
  get(): Promise<string>;
  invalidate(): void;
}

/**
 * One exchange with the cached bearer token (JSON in and out); a 401 means the PSP dropped the token early, so one
 * fresh token is tried.
 */
export async function sendAuthorized(
  dispatcher: Dispatcher,
  token: BearerToken,
  call: Omit<HttpCall, 'headers' | 'body'> & { body: unknown; headers?: Record<string, string> },
): Promise<HttpReply> {
  const { body, headers, ...rest } = call;
  const attempt = async (): Promise<HttpReply> =>
    send(dispatcher, {
      ...rest,
      headers: {
        ...headers,
        authorization: `Bearer ${await token.get()}`,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const reply = await attempt();
  if (reply.status !== 401) return reply;
  token.invalidate();
  return attempt();
}

async function exchange(dispatcher: Dispatcher, call: HttpCall): Promise<HttpReply> {
  // A budgeted task (the overdue-callback pass) counts every request it causes, retries and tokens included.
  takeFromBudget();
  const timer = pspRequests.startTimer({ operation: call.operation });
  try {
    const response = await request(call.url, {
      method: call.method,
      headers: call.headers,
      body: call.body,
      dispatcher,
      signal: AbortSignal.timeout(call.timeoutMs),
    });
    const text = await response.body.text();
    const contentType = String(response.headers['content-type'] ?? '');
    const retryAfter = response.headers['retry-after'];
    timer({ outcome: outcomeOf(response.statusCode) });
    return {
      status: response.statusCode,
      body: text.length > 0 && contentType.includes('json') ? parseJson(text) : text || undefined,
      retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
    };
  } catch (error) {
    timer({ outcome: 'unreachable' });
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    throw new PspError(
      'unavailable',
      null,
      `${call.operation} at ${new URL(call.url).origin} failed: ${reason}`,
    );
  }
}

function outcomeOf(status: number): 'ok' | 'refused' | 'unavailable' {
  if (status >= 200 && status < 300) return 'ok';
  return status === 429 || status >= 500 ? 'unavailable' : 'refused';
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
