import { createHmac } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;

export interface StandardWebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

export interface StandardWebhookInput {
  eventId: string;
  /** Unix seconds. */
  timestamp: number;
  body: Buffer | string;
  secret: string;
}

/**
 * `x-service-signature`: lowercase hex HMAC-SHA256 of the raw body. The interface only says "computed with the
 * secret", so the whole secret string (`whsec_...`, prefix included) is the HMAC key, taken as UTF-8 bytes: that is
 * what a receiver naturally does with the string it was given.
 */
export function serviceSignature(secret: string, rawBody: Buffer | string): string {
  return createHmac('sha256', secret).update(rawBody).digest('hex');
}

/** Standard Webhooks v1: key = base64-decoded part after `whsec_`, signed content `${id}.${timestamp}.${body}`. */
export function standardWebhookHeaders(input: StandardWebhookInput): StandardWebhookHeaders {
  const timestamp = String(input.timestamp);
  const signature = createHmac('sha256', standardWebhookKey(input.secret))
    .update(`${input.eventId}.${timestamp}.`)
    .update(input.body)
    .digest('base64');
  return {
    'webhook-id': input.eventId,
    'webhook-timestamp': timestamp,
    'webhook-signature': `v1,${signature}`,
  };
}

export function generateWebhookSecret(randomBytes32: Buffer): string {
  if (randomBytes32.length !== SECRET_BYTES) {
    throw new Error(`webhook secret needs exactly ${SECRET_BYTES} random bytes`);
  }
  return SECRET_PREFIX + randomBytes32.toString('base64');
}

function standardWebhookKey(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) {
    throw new Error('webhook secret must start with whsec_');
  }
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}
