import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { Pool } from 'undici';

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
  /** Closed loop: connections, each sending its next request when the last one is answered. */
  connections: number;
  seconds: number;
  /**
   * Closed loop only: ends once this many requests were answered, whatever the time (`seconds` is then ignored): a
   * smoke run bounds its work, not its time, so a busy machine's slow first answers still end in figures.
   */
  requests?: number;
  /** Open loop instead: requests sent at this fixed rate, whatever the answers (see `openLoop`). */
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

/** The target's body naming this request in its metadata, or none. */
function bodyFor(target: Target): string | undefined {
  if (target.body === undefined) return undefined;
  return JSON.stringify({
    ...target.body,
    metadata: JSON.stringify({ request: `${runId}-${requestsSent++}` }),
  });
}

/** The `p`th percentile of ascending `sorted` (nearest rank), 0 for none. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Closed loop through autocannon, open loop through `openLoop`. */
export function load(baseUrl: string, target: Target, shape: LoadShape): Promise<LoadFigures> {
  return shape.rate === undefined
    ? closedLoop(baseUrl, target, shape)
    : openLoop(baseUrl, target, shape.rate, shape.seconds);
}

/**
 * Loads `target` with autocannon and reports its throughput and exact latency percentiles (every response time is
 * kept: autocannon's own summary has no p95).
 */
function closedLoop(baseUrl: string, target: Target, shape: LoadShape): Promise<LoadFigures> {
  const latencies: number[] = [];
  const created: LoadFigures['created'] = [];
  let next = 0;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: baseUrl,
        connections: shape.connections,
        ...(shape.requests === undefined ? { duration: shape.seconds } : { amount: shape.requests }),
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
                body: bodyFor(target),
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

/**
 * Open loop: request i is due at start + i / rate, sent then over a keep-alive pool whatever the earlier answers did,
 * and its latency counts from when it was due, so queueing anywhere (even in this process) shows in the figures
 * (no coordinated omission). autocannon's own rate mode lets each connection send its quota at the start of every
 * second, which measures bursts instead.
 */
async function openLoop(
  baseUrl: string,
  target: Target,
  rate: number,
  seconds: number,
): Promise<LoadFigures> {
  const pool = new Pool(baseUrl, { connections: 256, keepAliveTimeout: 30_000 });
  const total = Math.round(rate * seconds);
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const created: LoadFigures['created'] = [];
  let failed = 0;
  const started = performance.now();
  const send = async (i: number): Promise<void> => {
    const due = started + (i * 1000) / rate;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
    const keyIndex = i % target.apiKeys.length;
    try {
      const response = await pool.request({
        method: target.method,
        path: typeof target.path === 'string' ? target.path : target.path(keyIndex),
        headers: { 'content-type': 'application/json', 'x-api-key': target.apiKeys[keyIndex]! },
        body: bodyFor(target),
      });
      const text = await response.body.text();
      latencies.push(performance.now() - due);
      statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1;
      const id = response.statusCode === 201 ? /"payment_id":"([^"]+)"/.exec(text)?.[1] : undefined;
      if (id !== undefined) created.push({ id, keyIndex });
      if (response.statusCode >= 300) failed += 1;
    } catch {
      failed += 1;
    }
  };
  await Promise.all(Array.from({ length: total }, (_, i) => send(i)));
  const elapsedSeconds = (performance.now() - started) / 1000;
  await pool.close();
  const sorted = latencies.sort((a, b) => a - b);
  return {
    requests: sorted.length,
    throughput: sorted.length / elapsedSeconds,
    p50: round(percentile(sorted, 50)),
    p95: round(percentile(sorted, 95)),
    p99: round(percentile(sorted, 99)),
    errors: failed,
    statuses,
    created,
  };
}
