import { Connection, type FetchFn } from '@solana/web3.js';
import type { HttpPost } from './retry-post';
import type { SolanaRpc } from './solana-rpc';

/**
 * A web3.js Connection for what only web3.js does here: building, signing and sending refunds (refund-chain.ts). Its
 * HTTP calls go through the watcher's `SolanaRpc` (pacing, retry policy, metrics, tracing); web3.js's own 429 retry is
 * disabled: it ignores Retry-After, has no jitter and writes to the console. Only the refund chain, loaded on first use,
 * imports this file, so an idle watcher never loads web3.js (docs/adr/0054). The sandbox's test wallet keeps
 * connections of its own, as it did (sandbox-wallet-chain.ts).
 */
export function createRpcConnection(rpc: SolanaRpc): Connection {
  const timedFetch = (_input: unknown, init?: unknown) => rpc.post(postOf(init));
  return new Connection(rpc.rpcUrl, {
    commitment: 'confirmed',
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
