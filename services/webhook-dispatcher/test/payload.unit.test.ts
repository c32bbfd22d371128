import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { newPublicId, type PaymentEventPayload } from '@gateway/contracts';
import { aRefundRecord } from '@gateway/testkit';
import {
  type WebhookEvent,
  paymentWebhookEvent,
  refundWebhookEvent,
  serializeDeliveryBody,
  signedDeliveryHeaders,
} from '../src/domain/payload';
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
      fee_brl: 0.5,
      net_amount_brl: 49.5,
      external_id: `txid${suffix}`,
      failure_code: null,
      failure_reason: null,
      description: null,
      customer_id: null,
      refunded_amount_brl: 0,
      expires_at: '2025-01-15T13:00:00.000Z',
      payer: { name: 'Maria Souza', document_masked: '***.456.789-**' },
      subscription_id: null,
      cycle: null,
      created_at: '2025-01-15T12:00:00.000Z',
      updated_at: '2025-01-15T12:01:00.000Z',
    },
  };
}

describe('delivery payload', () => {
  it('serializes the documented envelope (docs/api.md#events) with the payment record as data', () => {
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

describe('paymentWebhookEvent', () => {
  it('turns a payment domain event into the public record: BRL amounts with fee and net, no metadata, GET field order', () => {
    const businessId = newPublicId('biz');
    const event: PaymentEventPayload = {
      event_id: newPublicId('evt'),
      business_id: businessId,
      occurred_at: '2025-01-15T12:05:00.000Z',
      payment: {
        payment_id: newPublicId('pay'),
        transaction_id: null,
        business_id: businessId,
        method: 'crypto',
        status: 'failed',
        amount_centavos: 12345,
        fee_centavos: 99,
        external_id: 'RefPubkey1111111111111111111111111111111111',
        failure_code: 'UNDERPAID',
        failure_reason: 'Valor recebido menor que o cobrado',
        metadata: '{"secret_note":1}',
        customer_id: 'cust_abcdefghijklmnopqrstuvwx',
        refunded_centavos: 4010,
        expires_at: '2025-01-15T12:30:00.000Z',
        payer: null,
        created_at: '2025-01-15T12:00:00.000Z',
        updated_at: '2025-01-15T12:05:00.000Z',
      },
    };

    const webhookEvent = paymentWebhookEvent('payment.failed', event);

    expect(webhookEvent).toEqual({
      id: event.event_id,
      type: 'payment.failed',
      createdAt: '2025-01-15T12:05:00.000Z',
      businessId,
      data: {
        payment_id: event.payment.payment_id,
        transaction_id: null,
        business_id: businessId,
        method: 'crypto',
        status: 'failed',
        amount_brl: 123.45,
        fee_brl: 0.99,
        net_amount_brl: 122.46,
        external_id: event.payment.external_id,
        failure_code: 'UNDERPAID',
        failure_reason: 'Valor recebido menor que o cobrado',
        description: null,
        customer_id: 'cust_abcdefghijklmnopqrstuvwx',
        refunded_amount_brl: 40.1,
        expires_at: '2025-01-15T12:30:00.000Z',
        payer: null,
        subscription_id: null,
        cycle: null,
        created_at: '2025-01-15T12:00:00.000Z',
        updated_at: '2025-01-15T12:05:00.000Z',
      },
    });
    expect(Object.keys(webhookEvent.data)).toEqual([
      'payment_id',
      'transaction_id',
      'business_id',
      'method',
      'status',
      'amount_brl',
      'fee_brl',
      'net_amount_brl',
      'external_id',
      'failure_code',
      'failure_reason',
      'description',
      'customer_id',
      'refunded_amount_brl',
      'expires_at',
      'payer',
      'subscription_id',
      'cycle',
      'created_at',
      'updated_at',
    ]);
  });
});

describe('refundWebhookEvent', () => {
  it('an event written before the window end and payer were carried answers both as null', () => {
    const businessId = newPublicId('biz');
    const webhookEvent = paymentWebhookEvent('payment.confirmed', {
      event_id: newPublicId('evt'),
      business_id: businessId,
      occurred_at: '2025-01-15T12:05:00.000Z',
      payment: {
        payment_id: newPublicId('pay'),
        transaction_id: 'E0000000020250115120000000000001',
        business_id: businessId,
        method: 'pix',
        status: 'paid',
        amount_centavos: 5000,
        fee_centavos: 50,
        external_id: 'txid1',
        failure_code: null,
        failure_reason: null,
        metadata: null,
        created_at: '2025-01-15T12:00:00.000Z',
        updated_at: '2025-01-15T12:05:00.000Z',
      },
    });
    expect(webhookEvent.data).toMatchObject({
      fee_brl: 0.5,
      net_amount_brl: 49.5,
      expires_at: null,
      payer: null,
    });
  });

  it('carries the refund record with its amount in BRL, as GET /v1/refunds/{id} shows it', () => {
    const businessId = newPublicId('biz');
    const refund = aRefundRecord({
      business_id: businessId,
      amount_centavos: 1999,
      status: 'failed',
      reason: 'simulate:fail',
      failure_reason: 'NAO_REALIZADO',
      external_id: 'D123',
      created_at: '2025-01-15T12:00:00.000Z',
      updated_at: '2025-01-15T12:00:01.000Z',
    });
    const event = refundWebhookEvent('refund.failed', {
      event_id: newPublicId('evt'),
      business_id: businessId,
      occurred_at: '2025-01-15T12:00:01.000Z',
      refund,
    });
    expect(event.data).toEqual({
      refund_id: refund.refund_id,
      payment_id: refund.payment_id,
      amount_brl: 19.99,
      status: 'failed',
      reason: 'simulate:fail',
      failure_reason: 'NAO_REALIZADO',
      external_id: 'D123',
      returned_funds_id: null,
      created_at: refund.created_at,
      updated_at: refund.updated_at,
    });
    expect(event).toMatchObject({ type: 'refund.failed', businessId });
  });
});
