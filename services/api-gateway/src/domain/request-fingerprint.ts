import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every depth, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are the same request. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** SHA-256 of method, path and canonical body: what must match for an `Idempotency-Key` to be replayed. */
export function requestHash(method: string, path: string, body: unknown): Buffer {
  return createHash('sha256')
    .update(`${method.toUpperCase()} ${path}\n${canonicalJson(body)}`)
    .digest();
}

/** The command id for an idempotent request: the same key of the same business always sends the same id, so the
 * downstream inboxes deduplicate a retry even when the gateway's own record was released. */
export function idempotentCommandId(businessId: string, idempotencyKey: string): string {
  const digest = createHash('sha256').update(`${businessId}\n${idempotencyKey}`).digest('base64url');
  return `idem_${digest}`;
}
