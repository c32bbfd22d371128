import { Connection, type Commitment, type FetchFn } from '@solana/web3.js';
import { histogram, inOutgoingCall, tracerOf } from '@gateway/observability';
import { RequestPacer } from './request-pacer';
import {
  DEFAULT_RETRY_POLICY,
  postWithRetry,
  type HttpAnswer,
  type HttpPost,
  type RetryPolicy,
} from './retry-post';

const rpcRequests = histogram(
  'solana_watcher_rpc_request_duration_seconds',
  'JSON-RPC calls to the Solana node, retries included, by method and outcome (ok; rpc_error: the node answered an error; http_error: an HTTP error status; unreachable: no answer)',
  ['method', 'outcome'],
  [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120],
);
const tracer = tracerOf('solana-watcher:rpc');

/**
 * A web3.js Connection whose HTTP calls go through our pacing and retry policy, each timed by method and outcome and
 * traced as one span naming the node's host and the method only (a provider's key may be in the URL's path).
 * web3.js's own 429 retry is disabled: it ignores Retry-After, has no jitter and writes to the console.
 */
export function createRpcConnection(
  rpcUrl: string,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
  pacer: RequestPacer = new RequestPacer(Number.POSITIVE_INFINITY),
  commitment: Commitment = 'confirmed',
): Connection {
  const timedFetch = async (input: unknown, init?: unknown): Promise<HttpAnswer> => {
    const post = postOf(init);
    const method = rpcMethodOf(post.body);
    const timer = rpcRequests.startTimer({ method });
    const attributes = { 'rpc.system': 'jsonrpc', 'rpc.method': method };
    return inOutgoingCall(tracer, `Solana RPC ${method}`, rpcUrl, attributes, async () => {
      try {
        const response = await postWithRetry(String(input), post, policy, pacer);
        timer({ outcome: await outcomeOf(response) });
        return response;
      } catch (err) {
        timer({ outcome: 'unreachable' });
        // web3.js answers its caller only when its fetch throws an Error of its own realm; anything else (a socket's
        // error under a test runner's realm) would leave the call waiting forever.
        throw new Error(`no answer from the Solana node to ${method}${codeOf(err)}`, { cause: err });
      }
    });
  };
  return new Connection(rpcUrl, {
    commitment,
    fetch: timedFetch as unknown as FetchFn,
    disableRetryOnRateLimit: true,
    // Its keep-alive agent is for its own fetch; undici's pool keeps the connections.
    httpAgent: false,
  });
}

/**
 * The body and headers web3.js hands its fetch: it sends every call as a POST of a JSON string with its headers as a
 * plain object. Anything else is a web3.js this client was not written for, refused rather than sent altered.
 */
function postOf(init: unknown): HttpPost {
  const { body, headers } = (init ?? {}) as { body?: unknown; headers?: unknown };
  const plainHeaders =
    headers === undefined ||
    (typeof headers === 'object' &&
      headers !== null &&
      Object.getPrototypeOf(headers) === Object.prototype &&
      Object.values(headers).every((value) => typeof value === 'string'));
  if (typeof body !== 'string' || !plainHeaders)
    throw new TypeError('a Solana RPC call is a POST of a JSON string with plain headers');
  return { body, headers: headers as Record<string, string> | undefined };
}

/** The JSON-RPC method a request body calls (`batch` for several at once); a fixed set, fit for a label. */
function rpcMethodOf(body: string): string {
  try {
    const parsed = JSON.parse(body) as { method?: unknown } | unknown[];
    if (Array.isArray(parsed)) return 'batch';
    return typeof parsed.method === 'string' ? parsed.method : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** The answer is held as text: web3.js reads the same text again. */
async function outcomeOf(response: HttpAnswer): Promise<'ok' | 'rpc_error' | 'http_error'> {
  if (!response.ok) return 'http_error';
  try {
    const answer = JSON.parse(await response.text()) as { error?: unknown } | Array<{ error?: unknown }>;
    const answers = Array.isArray(answer) ? answer : [answer];
    return answers.some((one) => one?.error !== undefined) ? 'rpc_error' : 'ok';
  } catch {
    return 'rpc_error';
  }
}

/** The failure's code, when it has one (ECONNREFUSED, UND_ERR_SOCKET…); its message is the cause's, logged with it. */
function codeOf(err: unknown): string {
  const { code } = (err ?? {}) as { code?: unknown };
  return typeof code === 'string' && code !== '' ? ` (${code})` : '';
}
