import {
  newPublicId,
  type CryptoInstructions,
  type PaymentEventPayload,
  type PaymentRecord,
  type PaymentView,
  type PixInstructions,
  type RefundEventPayload,
  type RefundRecord,
  type RefundRequested,
} from '@gateway/contracts';

// Builders of the contract payloads several services' tests exchange: everything defaulted to a valid, plausible
// value, so a test states only what matters to it (`aPaymentRecord({ status: 'paid', method: 'crypto' })`).

/** A PIX payment of R$ 100,00 of a new business, just created and waiting for the PIX. */
export function aPaymentRecord(overrides: Partial<PaymentRecord> = {}): PaymentRecord {
  const now = new Date().toISOString();
  return {
    payment_id: newPublicId('pay'),
    transaction_id: null,
    business_id: newPublicId('biz'),
    method: 'pix',
    status: 'processing',
    amount_centavos: 10000,
    fee_centavos: 199,
    external_id: 'txid0123456789abcdef0123456789',
    failure_code: null,
    failure_reason: null,
    metadata: null,
    created_at: now,
    updated_at: now,
    ...overrides,
  };
}

/** A PIX charge's code and QR, valid for an hour. */
export function aPixInstructions(overrides: Partial<PixInstructions> = {}): PixInstructions {
  return {
    qr_code: 'data:image/png;base64,iVBORw0KGgo=',
    copia_e_cola:
      '00020101021226830014br.gov.bcb.pix2561pix.example.com/qr/v2/cobv/abc5204000053039865802BR6304ABCD',
    expires_at: new Date(Date.now() + 3600_000).toISOString(),
    ...overrides,
  };
}

/** A USDC transfer request on Solana, valid for half an hour. */
export function aCryptoInstructions(overrides: Partial<CryptoInstructions> = {}): CryptoInstructions {
  return {
    currency: 'usdc',
    network: 'solana',
    qr_code: 'data:image/png;base64,iVBORw0KGgo=',
    payment_link: 'solana:7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU?amount=18.234568&spl-token=EPjF',
    wallet_address: '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU',
    amount_base_units: '18234568',
    decimals: 6,
    expires_at: new Date(Date.now() + 1800_000).toISOString(),
    ...overrides,
  };
}

/** What the payment service answers for a PIX payment: the record (processing unless told) and its code. */
export function aPixPaymentView(record: Partial<PaymentRecord> = {}): PaymentView {
  return {
    payment: aPaymentRecord({ method: 'pix', status: 'processing', ...record }),
    pix: aPixInstructions(),
  };
}

/** What the payment service answers for a crypto payment: the record (pending unless told) and its request. */
export function aCryptoPaymentView(record: Partial<PaymentRecord> = {}): PaymentView {
  return {
    payment: aPaymentRecord({ method: 'crypto', status: 'pending', ...record }),
    crypto: aCryptoInstructions(),
  };
}

/** A `payment.*.v1` event as the payment service emits it, now, about `payment` (a new one unless told). */
export function aPaymentEvent(payment: Partial<PaymentRecord> = {}): PaymentEventPayload {
  const record = aPaymentRecord(payment);
  return {
    event_id: newPublicId('evt'),
    business_id: record.business_id,
    occurred_at: new Date().toISOString(),
    payment: record,
  };
}

/** A PIX refund of R$ 10,50 of a new payment, just opened: pending until the rail settles it. */
export function aRefundRecord(overrides: Partial<RefundRecord> = {}): RefundRecord {
  const now = new Date().toISOString();
  return {
    refund_id: newPublicId('ref'),
    payment_id: newPublicId('pay'),
    business_id: newPublicId('biz'),
    method: 'pix',
    amount_centavos: 1050,
    status: 'pending',
    reason: null,
    failure_reason: null,
    external_id: null,
    returned_funds_id: null,
    created_at: now,
    updated_at: now,
    ...overrides,
  };
}

/** A `refund.*.v1` event as the payment service emits it, now, about `refund` (a new one unless told). */
export function aRefundEvent(refund: Partial<RefundRecord> = {}): RefundEventPayload {
  const record = aRefundRecord(refund);
  return {
    event_id: newPublicId('evt'),
    business_id: record.business_id,
    occurred_at: new Date().toISOString(),
    refund: record,
  };
}

/**
 * The payment service asking a rail to refund `payment` (`pix.refund.requested.v1`, `crypto.refund.requested.v1`): a
 * new refund of the whole amount, without a reason, unless told.
 */
export function aRefundRequest(
  payment: Pick<PaymentRecord, 'payment_id' | 'amount_centavos'>,
  overrides: Partial<RefundRequested> = {},
): RefundRequested {
  return {
    refund_id: newPublicId('ref'),
    payment_id: payment.payment_id,
    amount_centavos: payment.amount_centavos,
    payment_amount_centavos: payment.amount_centavos,
    reason: null,
    ...overrides,
  };
}
