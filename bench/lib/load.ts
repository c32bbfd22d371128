import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';

/** One route to load: a body (for POST) and the API keys to spread the requests over, round robin. */
export interface Target {
  method: 'GET' | 'POST';
  /** A fixed path, or one per key (GET of a payment of that key's business). */
  path: string | ((keyIndex: number) => string);
  /** A JSON body; its `metadata` names the request (`{"request":N}`), so a payment made twice for one is seen. */
  body?: Record<string, unknown>;
  apiKeys: readonly string[];
}

export interface LoadShape {
  connections: number;
  seconds: number;
  /** Open loop: requests per second across all connections (enough connections must be free to hold it). */
  rate?: number;
}

export interface LoadFigures {
  requests: number;
  /** Responses per second over the measured time. */
  throughput: number;
  p50: number;
  p95: number;
  p99: number;
  /** Non-2xx answers plus request errors and timeouts. */
  errors: number;
  statuses: Record<string, number>;
  /** payment_id of every 201 answer (POST), with the index of the key that created it. */
  created: Array<{ id: string; keyIndex: number }>;
}

const round = (ms: number) => Math.round(ms * 10) / 10;
/** Distinguishes this process's request names from an earlier run's on the same stack. */
const runId = randomBytes(4).toString('hex');
/** Requests sent by this process so far: the number in each one's name. */
let requestsSent = 0;

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/**
 * Loads `target` with autocannon and reports its throughput and exact latency percentiles (every response time is
 * kept: autocannon's own summary has no p95). Open loop (`rate`) reports the rate achieved, so a generator that could
 * not hold its rate shows it instead of hiding queueing (coordinated omission).
 */
export function load(baseUrl: string, target: Target, shape: LoadShape): Promise<LoadFigures> {
  const latencies: number[] = [];
  const created: LoadFigures['created'] = [];
  let next = 0;
  const bodyOf = () =>
    target.body === undefined
      ? undefined
      : JSON.stringify({
          ...target.body,
          metadata: JSON.stringify({ request: `${runId}-${requestsSent++}` }),
        });
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: baseUrl,
        connections: shape.connections,
        duration: shape.seconds,
        overallRate: shape.rate,
        timeout: 30,
        requests: [
          {
            method: target.method,
            setupRequest: (request, context) => {
              const keyIndex = next++ % target.apiKeys.length;
              (context as { keyIndex?: number }).keyIndex = keyIndex;
              return {
                ...request,
                path: typeof target.path === 'string' ? target.path : target.path(keyIndex),
                body: bodyOf(),
                headers: { 'content-type': 'application/json', 'x-api-key': target.apiKeys[keyIndex]! },
              };
            },
            onResponse: (status, responseBody, context) => {
              if (status !== 201) return;
              const id = /"payment_id":"([^"]+)"/.exec(responseBody)?.[1];
              const { keyIndex } = context as { keyIndex: number };
              if (id !== undefined) created.push({ id, keyIndex });
            },
          },
        ],
      },
      (err: unknown, result: autocannon.Result) => {
        if (err) return reject(err instanceof Error ? err : new Error(String(err)));
        const sorted = latencies.sort((a, b) => a - b);
        const statuses = Object.fromEntries(
          Object.entries(result.statusCodeStats ?? {}).map(([status, { count }]) => [status, count ?? 0]),
        );
        resolve({
          requests: sorted.length,
          throughput: sorted.length / result.duration,
          p50: round(percentile(sorted, 50)),
          p95: round(percentile(sorted, 95)),
          p99: round(percentile(sorted, 99)),
          errors: result.non2xx + result.errors + result.timeouts,
          statuses,
          created,
        });
      },
    );
    instance.on('response', (_client, _status, _bytes, responseTime) => latencies.push(responseTime));
  });
}
