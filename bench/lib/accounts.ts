import { createHash, randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';

export interface StackAccount {
  businessId: string;
  apiKey: string;
}

async function call(
  baseUrl: string,
  method: string,
  path: string,
  auth: Record<string, string>,
  body?: unknown,
): Promise<Record<string, unknown>> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...auth, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

export function apiCall(
  baseUrl: string,
  apiKey: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  return call(baseUrl, method, path, { ...headers, 'x-api-key': apiKey }, body);
}

/** Runs `work` for 0..count-1, `parallel` at a time. */
export async function inParallel<T>(count: number, parallel: number, work: (i: number) => Promise<T>) {
  const results: T[] = new Array<T>(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(parallel, count) }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await work(i);
      }
    }),
  );
  return results;
}

/**
 * Businesses made through the operator API, each with its API key and PIX and crypto fee rules: the load is spread
 * over their keys so the per-key rate limit, left on, never answers 429.
 */
export function openStackAccounts(baseUrl: string, adminToken: string, count: number) {
  const admin = { authorization: `Bearer ${adminToken}` };
  return inParallel(count, 8, async (i): Promise<StackAccount> => {
    const business = await call(baseUrl, 'POST', '/admin/v1/businesses', admin, { name: `Bench Loja ${i}` });
    const businessId = business.business_id as string;
    for (const method of ['pix', 'crypto'])
      await call(baseUrl, 'PUT', `/admin/v1/businesses/${businessId}/fee-rules/${method}`, admin, {
        percent_bps: 99,
        fixed_centavos: 10,
      });
    return { businessId, apiKey: business.api_key as string };
  });
}

/** The baseline's businesses, inserted straight into its tables (it has no operator API); returns their keys. */
export async function openBaselineAccounts(databaseUrl: string, count: number): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const keys = Array.from({ length: count }, () => `bk_${randomBytes(24).toString('hex')}`);
    for (const key of keys) {
      await client.query(
        `INSERT INTO baseline_businesses (id, name, api_key_hash, fee_percent_bps, fee_fixed_centavos)
         VALUES ($1, $2, $3, 99, 10)`,
        [randomUUID(), 'Bench Loja', createHash('sha256').update(key).digest('hex')],
      );
    }
    return keys;
  } finally {
    await client.end();
  }
}
