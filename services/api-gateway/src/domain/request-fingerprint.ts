import { createHash } from 'node:crypto';
import { MAX_JSON_DEPTH } from '@gateway/contracts';

/** Bodies nested deeper than MAX_JSON_DEPTH are refused before they are fingerprinted: meeting one is a bug. */
export class TooDeepToCanonicalize extends Error {
  constructor() {
    super(`JSON nested deeper than ${MAX_JSON_DEPTH} levels cannot be canonicalized`);
    this.name = 'TooDeepToCanonicalize';
  }
}

/**
 * JSON with object keys sorted at every depth, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are the same request. The
 * recursion stops below MAX_JSON_DEPTH levels (a TooDeepToCanonicalize), so no body can exhaust the stack.
 */
export function canonicalJson(value: unknown, depth = 0): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (depth >= MAX_JSON_DEPTH) throw new TooDeepToCanonicalize();
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item, depth + 1)).join(',')}]`;
  const entries = Object.keys(value)
    .sort()
    .map(
      (key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key], depth + 1)}`,
    );
  return `{${entries.join(',')}}`;
}

/** SHA-256 of method, path and canonical body: what must match for an `Idempotency-Key` to be replayed. */
export function requestHash(method: string, path: string, body: unknown): Buffer {
  return createHash('sha256')
    .update(`${method.toUpperCase()} ${path}\n${canonicalJson(body)}`)
    .digest();
}

/**
 * The command id of an idempotent request: its business, key, request hash and claim. A retry of the same claim
 * (a repeat after a 5xx, or a takeover of an abandoned attempt) sends the same id, so the downstream inboxes apply it
 * once; the same key claimed afresh after its record expired sends a new id, so it can never replay or rewrite what
 * the old claim created.
 */
export function idempotentCommandId(
  businessId: string,
  idempotencyKey: string,
  requestHash: Buffer,
  claimId: string,
): string {
  const digest = createHash('sha256')
    .update(`${businessId}\n${idempotencyKey}\n${requestHash.toString('hex')}\n${claimId}`)
    .digest('base64url');
  return `idem_${digest}`;
}
