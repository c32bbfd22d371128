import { Connection, type Commitment, type FetchFn } from '@solana/web3.js';
import { type RequestInit } from 'undici';
import { RequestPacer } from './request-pacer';
import { DEFAULT_RETRY_POLICY, fetchWithRetry, type RetryPolicy } from './retry-fetch';

/**
 * A web3.js Connection whose HTTP calls go through our pacing and retry policy. web3.js's own 429 retry is
 * disabled: it ignores Retry-After, has no jitter and writes to the console.
 */
export function createRpcConnection(
  rpcUrl: string,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
  pacer: RequestPacer = new RequestPacer(Number.POSITIVE_INFINITY),
  commitment: Commitment = 'confirmed',
): Connection {
  const retryingFetch = (input: unknown, init?: unknown) =>
    fetchWithRetry(String(input), (init ?? {}) as RequestInit, policy, pacer);
  return new Connection(rpcUrl, {
    commitment,
    fetch: retryingFetch as unknown as FetchFn,
    disableRetryOnRateLimit: true,
  });
}
