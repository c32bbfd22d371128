import {
  newPublicId,
  type CryptoInstructions,
  type PaymentRecord,
  type PaymentView,
  type PixInstructions,
} from '@gateway/contracts';

// Contract-valid answers of the payment service, for fake handlers.

export function paymentRecord(overrides: Partial<PaymentRecord> = {}): PaymentRecord {
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

export function pixInstructions(overrides: Partial<PixInstructions> = {}): PixInstructions {
  return {
    qr_code: 'data:image/png;base64,iVBORw0KGgo=',
    copia_e_cola:
      '00020101021226830014br.gov.bcb.pix2561pix.example.com/qr/v2/cobv/abc5204000053039865802BR6304ABCD',
    expires_at: new Date(Date.now() + 3600_000).toISOString(),
    ...overrides,
  };
}

export function cryptoInstructions(overrides: Partial<CryptoInstructions> = {}): CryptoInstructions {
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

export function pixView(record: Partial<PaymentRecord> = {}): PaymentView {
  return {
    payment: paymentRecord({ method: 'pix', status: 'processing', ...record }),
    pix: pixInstructions(),
  };
}

export function cryptoView(record: Partial<PaymentRecord> = {}): PaymentView {
  return {
    payment: paymentRecord({ method: 'crypto', status: 'pending', ...record }),
    crypto: cryptoInstructions(),
  };
}
