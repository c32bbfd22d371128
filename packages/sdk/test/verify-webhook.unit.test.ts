import { createHmac, randomBytes } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from '../src';

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
const now = new Date('2026-11-22T12:00:00.000Z');
const nowSeconds = Math.floor(now.getTime() / 1000);
const body = JSON.stringify({
  id: 'evt_0123456789abcdefghijklmn',
  type: 'payment.confirmed',
  created_at: now.toISOString(),
  business_id: 'biz_0123456789abcdefghijklmn',
  data: { payment_id: 'pay_0123456789abcdefghijklmn', status: 'paid', amount_brl: 123.45 },
});

/** Headers as the dispatcher signs a delivery, made with the reference Standard Webhooks library. */
function signed(
  secret: string,
  {
    timestamp = now,
    previousSecret,
    payload = body,
    id = 'evt_0123456789abcdefghijklmn',
  }: { timestamp?: Date; previousSecret?: string; payload?: string; id?: string } = {},
): Record<string, string> {
  const sign = (key: string) => new StandardWebhook(key).sign(id, timestamp, payload);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': previousSecret ? `${sign(secret)} ${sign(previousSecret)}` : sign(secret),
    'x-service-signature': createHmac('sha256', secret).update(payload).digest('hex'),
  };
}

const refusal = (run: () => unknown): string => {
  try {
    run();
  } catch (err) {
    if (err instanceof WebhookVerificationError) return err.message;
    throw err;
  }
  throw new Error('the delivery was accepted');
};

describe('verifyWebhook', () => {
  test('accepts a delivery signed with both schemes and returns its event', () => {
    const secret = newSecret();
    const event = verifyWebhook(body, signed(secret), secret, { now });
    expect(event).toMatchObject({ id: 'evt_0123456789abcdefghijklmn', type: 'payment.confirmed' });
    if (event.type === 'payment.confirmed') expect(event.data.amount_brl).toBe(123.45);
  });

  test('takes the raw body as bytes and headers as a fetch Headers, in any case', () => {
    const secret = newSecret();
    const headers = new Headers(
      Object.entries(signed(secret)).map(([name, value]) => [name.toUpperCase(), value]),
    );
    expect(verifyWebhook(Buffer.from(body), headers, secret, { now }).id).toBe(
      'evt_0123456789abcdefghijklmn',
    );
    expect(verifyWebhook(new TextEncoder().encode(body), headers, secret, { now }).type).toBe(
      'payment.confirmed',
    );
  });

  test('refuses another secret, a changed body and a changed event id', () => {
    const secret = newSecret();
    expect(refusal(() => verifyWebhook(body, signed(secret), newSecret(), { now }))).toMatch(
      /webhook-signature/,
    );
    const tampered = body.replace('123.45', '999.99');
    expect(refusal(() => verifyWebhook(tampered, signed(secret), secret, { now }))).toMatch(
      /webhook-signature/,
    );
    const otherId = { ...signed(secret), 'webhook-id': 'evt_zzzzzzzzzzzzzzzzzzzzzzzz' };
    expect(refusal(() => verifyWebhook(body, otherId, secret, { now }))).toMatch(/webhook-signature/);
  });

  test('refuses a timestamp outside the tolerance either way, and accepts one at its edge', () => {
    const secret = newSecret();
    const at = (offsetSeconds: number) =>
      signed(secret, { timestamp: new Date((nowSeconds + offsetSeconds) * 1000) });
    expect(refusal(() => verifyWebhook(body, at(-301), secret, { now }))).toMatch(/tolerance/);
    expect(refusal(() => verifyWebhook(body, at(301), secret, { now }))).toMatch(/tolerance/);
    expect(verifyWebhook(body, at(-300), secret, { now }).id).toBeDefined();
    expect(verifyWebhook(body, at(-3000), secret, { now, toleranceSeconds: 3600 }).id).toBeDefined();
    const garbage = { ...signed(secret), 'webhook-timestamp': '1e9' };
    expect(refusal(() => verifyWebhook(body, garbage, secret, { now }))).toMatch(/not a number/);
  });

  test('during a rotation either secret verifies, though x-service-signature carries only the new one', () => {
    const oldSecret = newSecret();
    const rotated = newSecret();
    const headers = signed(rotated, { previousSecret: oldSecret });
    expect(verifyWebhook(body, headers, oldSecret, { now }).id).toBeDefined();
    expect(verifyWebhook(body, headers, rotated, { now }).id).toBeDefined();
    expect(verifyWebhook(body, headers, [newSecret(), oldSecret], { now }).id).toBeDefined();
    expect(refusal(() => verifyWebhook(body, headers, newSecret(), { now }))).toMatch(/webhook-signature/);
  });

  test('outside a rotation, a wrong x-service-signature is refused even when webhook-signature matches', () => {
    const secret = newSecret();
    const headers = { ...signed(secret), 'x-service-signature': '00'.repeat(32) };
    expect(refusal(() => verifyWebhook(body, headers, secret, { now }))).toMatch(/x-service-signature/);
  });

  test('a delivery signed only with x-service-signature is refused unless untimestamped deliveries are allowed', () => {
    const secret = newSecret();
    const { 'x-service-signature': serviceSignature } = signed(secret);
    const headers = { 'x-service-signature': serviceSignature };
    expect(refusal(() => verifyWebhook(body, headers, secret, { now }))).toMatch(/replay/);
    expect(verifyWebhook(body, headers, secret, { allowUntimestamped: true }).id).toBeDefined();
    const wrong = { 'x-service-signature': createHmac('sha256', newSecret()).update(body).digest('hex') };
    expect(refusal(() => verifyWebhook(body, wrong, secret, { allowUntimestamped: true }))).toMatch(
      /x-service-signature/,
    );
  });

  test('refuses a secret without its whsec_ prefix, which would pass Standard Webhooks and never x-service-signature', () => {
    const secret = newSecret();
    const headers = signed(secret);
    const bare = secret.slice('whsec_'.length);
    expect(() => verifyWebhook(body, headers, bare, { now })).toThrow(TypeError);
    expect(() => verifyWebhook(body, headers, [secret, bare], { now })).toThrow(
      /"whsec_\.\.\." \(prefix included\)/,
    );
    expect(() => verifyWebhook(body, headers, 'whsec_', { now })).toThrow(TypeError);
    expect(verifyWebhook(body, headers, secret, { now }).id).toBe('evt_0123456789abcdefghijklmn');
  });

  test('refuses unsigned deliveries, incomplete headers, other signature versions and bodies that are not events', () => {
    const secret = newSecret();
    expect(refusal(() => verifyWebhook(body, {}, secret, { now }))).toMatch(/not signed/);
    const { 'webhook-id': _id, ...withoutId } = signed(secret);
    expect(refusal(() => verifyWebhook(body, withoutId, secret, { now }))).toMatch(/incomplete/);
    const v2 = { ...signed(secret) };
    v2['webhook-signature'] = v2['webhook-signature']!.replace('v1,', 'v2,');
    expect(refusal(() => verifyWebhook(body, v2, secret, { now }))).toMatch(/webhook-signature/);
    const notAnEvent = '{"hello":"world"}';
    expect(
      refusal(() => verifyWebhook(notAnEvent, signed(secret, { payload: notAnEvent }), secret, { now })),
    ).toMatch(/not an event/);
  });
});
