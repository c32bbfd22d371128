import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { type WebhookEvent, serializeDeliveryBody, signedDeliveryHeaders } from '../src/delivery/payload';
import { generateWebhookSecret, serviceSignature } from '../src/domain/signature';

function confirmedEvent(): WebhookEvent {
  const suffix = randomBytes(12).toString('hex');
  return {
    id: `evt_${suffix}`,
    type: 'payment.confirmed',
    createdAt: new Date().toISOString(),
    businessId: `biz_${suffix}`,
    data: {
      payment_id: `pay_${suffix}`,
      transaction_id: 'E0000000020250115120000000000001',
      business_id: `biz_${suffix}`,
      method: 'pix',
      status: 'paid',
      amount_brl: 50.0,
      external_id: `txid${suffix}`,
      failure_code: null,
      failure_reason: null,
      created_at: '2025-01-15T12:00:00.000Z',
      updated_at: '2025-01-15T12:01:00.000Z',
    },
  };
}

describe('delivery payload', () => {
  it('serializes the decisions.md envelope with the payment record as data', () => {
    const event = confirmedEvent();
    const parsed: unknown = JSON.parse(serializeDeliveryBody(event).toString('utf8'));
    expect(parsed).toEqual({
      id: event.id,
      type: event.type,
      created_at: event.createdAt,
      business_id: event.businessId,
      data: event.data,
    });
    expect(Object.keys(parsed as object)).toEqual(['id', 'type', 'created_at', 'business_id', 'data']);
  });

  it('signs the exact body bytes with both signature schemes', () => {
    const event = confirmedEvent();
    const secret = generateWebhookSecret(randomBytes(32));
    const body = serializeDeliveryBody(event);
    const timestampSeconds = Math.floor(Date.now() / 1000);
    const headers = signedDeliveryHeaders({ body, eventId: event.id, timestampSeconds, secret });

    expect(Object.keys(headers).sort()).toEqual([
      'webhook-id',
      'webhook-signature',
      'webhook-timestamp',
      'x-service-signature',
    ]);
    expect(headers['x-service-signature']).toBe(serviceSignature(secret, body));
    expect(headers['webhook-id']).toBe(event.id);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body.toString('utf8')));
  });
});
