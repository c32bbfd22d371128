import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookEvent } from './types';

/** A delivery that must not be trusted: bad or missing signature, stale timestamp, or a body that is not an event. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

/** Node's `req.headers`, a fetch `Headers`, or any record of header names (any case) to values. */
export type WebhookHeaders =
  { get(name: string): string | null } | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyWebhookOptions {
  /** How far `webhook-timestamp` may be from now, either way. Default 300 s (Standard Webhooks' advice). */
  toleranceSeconds?: number;
  /** The clock to judge the timestamp by; default now. */
  now?: Date;
  /**
   * Accept a delivery signed only with `x-service-signature` (no `webhook-timestamp`, so no replay protection: dedupe
   * on the event id). Default false: the gateway always sends both schemes, so a delivery without the timestamped one
   * was stripped of it.
   */
  allowUntimestamped?: boolean;
}

const DEFAULT_TOLERANCE_SECONDS = 300;
const SECRET_PREFIX = 'whsec_';

/**
 * Checks a webhook delivery and returns its event. `rawBody` must be the bytes as received, before any JSON parsing;
 * `secret` is the webhook's `whsec_...` secret, or several (say the old and the new one while you roll out a rotation),
 * each exactly as the gateway gave it: a secret without the `whsec_` prefix is a TypeError.
 *
 * - Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`): the timestamp must be within the
 *   tolerance and one of the space-separated `v1,<base64>` signatures must be HMAC-SHA256 of `id.timestamp.body` under
 *   one of the secrets (during a rotation the gateway sends one per secret, so the old secret keeps working).
 * - `x-service-signature` (docs/api.md#webhooks-and-signatures): lowercase hex HMAC-SHA256 of the body under the secret. It must match too,
 *   except while a rotation is in progress (more than one `webhook-signature`), when the gateway signs it with the
 *   new secret only and a receiver holding the old one cannot check it.
 *
 * Every comparison is constant-time. Throws WebhookVerificationError when the delivery must be refused.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  const secrets = typeof secret === 'string' ? [secret] : [...secret];
  if (secrets.length === 0) throw new TypeError('verifyWebhook needs the webhook secret');
  // Both schemes key on the secret as given (x-service-signature on the whole `whsec_...` string): one without its
  // prefix would pass Standard Webhooks and then never match x-service-signature, so it is refused here, loudly.
  for (const each of secrets)
    if (typeof each !== 'string' || !each.startsWith(SECRET_PREFIX) || each.length === SECRET_PREFIX.length)
      throw new TypeError(
        `verifyWebhook needs the webhook secret as the gateway gave it, "${SECRET_PREFIX}..." (prefix included)`,
      );
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  const header = headerReader(headers);

  const id = header('webhook-id');
  const timestamp = header('webhook-timestamp');
  const signatures = header('webhook-signature');
  const serviceSignature = header('x-service-signature');
  const timestamped = id !== undefined || timestamp !== undefined || signatures !== undefined;

  if (timestamped) {
    if (id === undefined || timestamp === undefined || signatures === undefined)
      throw new WebhookVerificationError('incomplete Standard Webhooks headers');
    checkTimestamp(timestamp, options);
    const candidates = signatures.split(' ').filter((entry) => entry !== '');
    const signedContent = Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), body]);
    const expected = secrets.map((each) => hmac(standardKey(each), signedContent));
    const matched = candidates.some((candidate) => {
      const [version, value] = candidate.split(',', 2);
      return version === 'v1' && value !== undefined && matchesAny(Buffer.from(value, 'base64'), expected);
    });
    if (!matched) throw new WebhookVerificationError('no webhook-signature matches the secret');
    const rotating = candidates.length > 1;
    if (serviceSignature !== undefined && !rotating && !serviceSignatureMatches(serviceSignature))
      throw new WebhookVerificationError('x-service-signature does not match the secret');
  } else {
    if (serviceSignature === undefined) throw new WebhookVerificationError('the delivery is not signed');
    if (!options.allowUntimestamped)
      throw new WebhookVerificationError('no webhook-timestamp: the delivery cannot be checked for replay');
    if (!serviceSignatureMatches(serviceSignature))
      throw new WebhookVerificationError('x-service-signature does not match the secret');
  }

  const event = parseEvent(body);
  if (id !== undefined && event.id !== id)
    throw new WebhookVerificationError('webhook-id is not the id of the event in the body');
  return event;

  function serviceSignatureMatches(given: string): boolean {
    if (!/^[0-9a-f]+$/i.test(given)) return false;
    const expected = secrets.map((each) => hmac(Buffer.from(each, 'utf8'), body));
    return matchesAny(Buffer.from(given, 'hex'), expected);
  }
}

function checkTimestamp(timestamp: string, options: VerifyWebhookOptions): void {
  if (!/^\d{1,15}$/.test(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not a number');
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(nowSeconds - Number(timestamp)) > tolerance)
    throw new WebhookVerificationError('webhook-timestamp is outside the tolerance');
}

/** Standard Webhooks keys are the base64 bytes after `whsec_` (every secret has it: checked above). */
function standardKey(secret: string): Buffer {
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

function hmac(key: Buffer, content: Buffer): Buffer {
  return createHmac('sha256', key).update(content).digest();
}

/** Constant-time for each candidate (lengths are public: every HMAC-SHA256 is 32 bytes). */
function matchesAny(given: Buffer, expected: readonly Buffer[]): boolean {
  let matched = false;
  for (const each of expected) {
    if (given.length === each.length && timingSafeEqual(given, each)) matched = true;
  }
  return matched;
}

function parseEvent(body: Buffer): WebhookEvent {
  let event: unknown;
  try {
    event = JSON.parse(body.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('the body is not JSON');
  }
  const { id, type, data } = (event ?? {}) as Record<string, unknown>;
  if (typeof id !== 'string' || typeof type !== 'string' || typeof data !== 'object' || data === null)
    throw new WebhookVerificationError('the body is not an event');
  return event as WebhookEvent;
}

function headerReader(headers: WebhookHeaders): (name: string) => string | undefined {
  if (typeof headers.get === 'function') {
    const fetchHeaders = headers as { get(name: string): string | null };
    return (name) => fetchHeaders.get(name) ?? undefined;
  }
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const byLowerName = new Map(Object.entries(record).map(([name, value]) => [name.toLowerCase(), value]));
  return (name) => {
    const value = byLowerName.get(name);
    return Array.isArray(value) ? value.join(' ') : (value as string | undefined);
  };
}
