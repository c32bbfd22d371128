/**
 * Public API figures of the whole stack as processes on this machine (load generator included): POST /v1/payments
 * for PIX and for crypto, and GET /v1/payments/:id, each under autocannon for a bounded time after a short warm-up.
 * For the creations it also counts the payments made: distinct payment_ids in the 201 bodies, each read back by GET.
 * Run: pnpm --filter @gateway/api-gateway bench
 */
import autocannon from 'autocannon';
import { startStack, type RunningStack } from '@gateway/testkit';

const CONNECTIONS = 16;
const WARM_UP_SECONDS = 3;
const MEASURED_SECONDS = 15;

interface Target {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
}

async function send(
  stack: RunningStack,
  apiKey: string | null,
  method: string,
  path: string,
  body?: unknown,
) {
  const response = await fetch(`${stack.gatewayUrl}${path}`, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(apiKey === null ? { authorization: `Bearer ${stack.adminToken}` } : { 'x-api-key': apiKey }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, any>;
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/** Loads one route; returns the payment_ids of its 201 answers (POST only). */
async function load(stack: RunningStack, apiKey: string, target: Target, seconds: number) {
  const created: string[] = [];
  const result = await autocannon({
    url: stack.gatewayUrl,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: target.method,
        path: target.path,
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: target.body === undefined ? undefined : JSON.stringify(target.body),
        onResponse: (status, body) => {
          const id = /"payment_id":"([^"]+)"/.exec(body)?.[1];
          if (status === 201 && id !== undefined) created.push(id);
        },
      },
    ],
  });
  return { result, created };
}

/** How many of these payments GET /v1/payments/:id finds, reading CONNECTIONS at a time. */
async function countReadable(stack: RunningStack, apiKey: string, ids: readonly string[]): Promise<number> {
  let next = 0;
  let found = 0;
  const reader = async () => {
    while (next < ids.length) {
      const id = ids[next++]!;
      const response = await fetch(`${stack.gatewayUrl}/v1/payments/${id}`, {
        headers: { 'x-api-key': apiKey },
      });
      await response.arrayBuffer();
      if (response.status === 200) found += 1;
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, reader));
  return found;
}

async function bench(stack: RunningStack, apiKey: string, target: Target): Promise<void> {
  await load(stack, apiKey, target, WARM_UP_SECONDS);
  const { result, created } = await load(stack, apiKey, target, MEASURED_SECONDS);
  const statuses = Object.entries(result.statusCodeStats)
    .map(([status, { count }]) => `${status}: ${count}`)
    .join(', ');
  console.log(
    `${target.name}: ${Math.round(result.requests.average)} req/s (${result.requests.total} responses in ${result.duration.toFixed(1)} s, ${CONNECTIONS} connections), ` +
      `latency p50 ${result.latency.p50} ms, p90 ${result.latency.p90} ms, p99 ${result.latency.p99} ms, ` +
      `non-2xx ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts} [${statuses}]`,
  );
  if (target.method === 'POST') {
    const distinct = [...new Set(created)];
    const readable = await countReadable(stack, apiKey, distinct);
    console.log(
      `  ${result.statusCodeStats['201']?.count ?? 0} responses 201, ${distinct.length} distinct payment_ids in them, ${readable} of those found by GET /v1/payments/:id`,
    );
  }
}

async function main(): Promise<void> {
  const booting = Date.now();
  const stack = await startStack({ RATE_LIMIT_PER_MINUTE: '1000000000' });
  try {
    console.log(`stack ready in ${((Date.now() - booting) / 1000).toFixed(1)} s`);
    const business = await send(stack, null, 'POST', '/admin/v1/businesses', { name: 'Bench Comércio Ltda' });
    const apiKey: string = business.api_key;
    for (const method of ['pix', 'crypto'])
      await send(stack, null, 'PUT', `/admin/v1/businesses/${business.business_id}/fee-rules/${method}`, {
        percent_bps: 99,
        fixed_centavos: 10,
      });
    const existing = await send(stack, apiKey, 'POST', '/v1/payments', {
      payment_method: 'pix',
      amount: 12345,
      currency: 'brl',
    });

    await bench(stack, apiKey, {
      name: 'POST /v1/payments pix 12345 centavos',
      method: 'POST',
      path: '/v1/payments',
      body: { payment_method: 'pix', amount: 12345, currency: 'brl' },
    });
    await bench(stack, apiKey, {
      name: 'POST /v1/payments crypto usdc',
      method: 'POST',
      path: '/v1/payments',
      body: {
        payment_method: 'crypto',
        amount: 12345,
        currency: 'brl',
        crypto: { currency: 'usdc', network: 'solana' },
      },
    });
    await bench(stack, apiKey, {
      name: 'GET /v1/payments/:id',
      method: 'GET',
      path: `/v1/payments/${existing.payment_id as string}`,
    });
  } finally {
    await stack.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
