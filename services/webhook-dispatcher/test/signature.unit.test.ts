import { createHmac, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { generateWebhookSecret, serviceSignature, standardWebhookHeaders } from '../src/domain/signature';

const secretArbitrary = fc
  .uint8Array({ minLength: 32, maxLength: 32 })
  .map((bytes) => generateWebhookSecret(Buffer.from(bytes)));

describe('serviceSignature', () => {
  it('matches an HMAC-SHA256 computed by openssl with the whole whsec_ string as key', () => {
    // printf '%s' '{"id":"evt_1","type":"payment.confirmed"}' | openssl dgst -sha256 -hmac 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'
    expect(
      serviceSignature('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', '{"id":"evt_1","type":"payment.confirmed"}'),
    ).toBe('9615d396703b34b4a5fd0ec8e4d71f330c9fa79d2ae08bc3f8a370cca4771239');
  });

  it('is lowercase hex of 64 characters and the same for a string body and its UTF-8 bytes', () => {
    fc.assert(
      fc.property(secretArbitrary, fc.string(), (secret, body) => {
        const signature = serviceSignature(secret, body);
        expect(signature).toMatch(/^[0-9a-f]{64}$/);
        expect(serviceSignature(secret, Buffer.from(body, 'utf8'))).toBe(signature);
      }),
    );
  });

  it('changes when one byte of the body changes', () => {
    const secret = generateWebhookSecret(randomBytes(32));
    const body = Buffer.from('{"amount_brl":50}');
    const tampered = Buffer.from('{"amount_brl":51}');
    expect(serviceSignature(secret, tampered)).not.toBe(serviceSignature(secret, body));
  });
});

describe('standardWebhookHeaders', () => {
  it('is accepted by the official standardwebhooks verifier for any body and secret', () => {
    fc.assert(
      fc.property(
        secretArbitrary,
        fc.string(),
        fc.stringMatching(/^evt_[A-Za-z0-9]{24}$/),
        (secret, body, eventId) => {
          const timestamp = Math.floor(Date.now() / 1000);
          const headers = standardWebhookHeaders({ eventId, timestamp, body, secret });
          expect(headers['webhook-id']).toBe(eventId);
          expect(headers['webhook-timestamp']).toBe(String(timestamp));
          expect(() => new Webhook(secret).verify(body, { ...headers }, { jsonParse: false })).not.toThrow();
        },
      ),
    );
  });

  it('produces the same value as the standardwebhooks signer', () => {
    const secret = generateWebhookSecret(randomBytes(32));
    const timestamp = 1_614_265_330;
    const body = Buffer.from('{"test": 2432232314}');
    const headers = standardWebhookHeaders({
      eventId: 'evt_p5jXN8AQM9LWM0D4loKWxJek',
      timestamp,
      body,
      secret,
    });
    const expected = new Webhook(secret).sign(
      'evt_p5jXN8AQM9LWM0D4loKWxJek',
      new Date(timestamp * 1000),
      body,
    );
    expect(headers['webhook-signature']).toBe(expected);
  });

  it('signs id.timestamp.body with the base64-decoded key, not the whsec_ string', () => {
    const key = randomBytes(32);
    const secret = generateWebhookSecret(key);
    const headers = standardWebhookHeaders({ eventId: 'evt_a', timestamp: 1700000000, body: '{}', secret });
    const expected = createHmac('sha256', key).update('evt_a.1700000000.{}').digest('base64');
    expect(headers['webhook-signature']).toBe(`v1,${expected}`);
  });

  it('is rejected by the verifier when the body was altered', () => {
    const secret = generateWebhookSecret(randomBytes(32));
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = standardWebhookHeaders({ eventId: 'evt_b', timestamp, body: '{"a":1}', secret });
    expect(() => new Webhook(secret).verify('{"a":2}', { ...headers })).toThrow();
  });

  it('refuses a secret without the whsec_ prefix', () => {
    expect(() =>
      standardWebhookHeaders({ eventId: 'evt_c', timestamp: 1, body: '{}', secret: 'abc' }),
    ).toThrow(/whsec_/);
  });
});

describe('generateWebhookSecret', () => {
  it('encodes the 32 random bytes as base64 after whsec_', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (bytes) => {
        const secret = generateWebhookSecret(Buffer.from(bytes));
        expect(secret.startsWith('whsec_')).toBe(true);
        expect(Buffer.from(secret.slice('whsec_'.length), 'base64').equals(Buffer.from(bytes))).toBe(true);
      }),
    );
  });

  it('refuses anything but exactly 32 bytes', () => {
    expect(() => generateWebhookSecret(randomBytes(31))).toThrow();
    expect(() => generateWebhookSecret(randomBytes(33))).toThrow();
  });
});
