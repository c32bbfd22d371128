import {
  newPublicId,
  type CryptoRequestClosed,
  type CryptoRequestSettled,
  type CryptoTransferUnapplied,
  type PaymentRecord,
  type PixChargeClosed,
  type PixChargePaid,
  type RefundSettled,
} from '@gateway/contracts';

// Builders of what the rails report to the payment service: everything defaulted to a plausible report about
// `payment`, so a test states only what matters to it (an amount, a reason, an outcome).

/** What a rail report names of its payment: the id, the rail's reference (txid or transfer reference), the amount. */
export type ReportedPayment = Pick<PaymentRecord, 'payment_id' | 'external_id' | 'amount_centavos'>;

const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

/** A fresh PIX endToEndId (E + 31 characters), so every report is a different PIX. */
export function anEndToEndId(): string {
  return `E${newPublicId('e')
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(0, 31)
    .padEnd(31, '0')}`;
}

/** A fresh transaction signature, so every report is a different transfer. */
export function aSignature(): string {
  return newPublicId('sig').replace(/[^A-Za-z0-9]/g, '');
}

/** The full amount paid by one new PIX, now. */
export function aPixChargePaid(
  payment: ReportedPayment,
  overrides: Partial<PixChargePaid> = {},
): PixChargePaid {
  return {
    payment_id: payment.payment_id,
    txid: payment.external_id!,
    end_to_end_id: anEndToEndId(),
    amount_centavos: payment.amount_centavos,
    paid_at: new Date().toISOString(),
    ...overrides,
  };
}

/** The charge expired with nothing received. */
export function aPixChargeClosed(
  payment: ReportedPayment,
  overrides: Partial<PixChargeClosed> = {},
): PixChargeClosed {
  return {
    payment_id: payment.payment_id,
    txid: payment.external_id!,
    reason: 'expired',
    detail: null,
    received_pix: [],
    ...overrides,
  };
}

/** The transfer request paid in full (one USDC) by one new transfer, with no excess, now. */
export function aCryptoRequestSettled(
  payment: ReportedPayment,
  overrides: Partial<CryptoRequestSettled> = {},
): CryptoRequestSettled {
  return {
    payment_id: payment.payment_id,
    reference: payment.external_id!,
    signature: aSignature(),
    received_base_units: '1000000',
    excess_base_units: '0',
    settled_at: new Date().toISOString(),
    ...overrides,
  };
}

/** The transfer request expired with nothing received. */
export function aCryptoRequestClosed(
  payment: ReportedPayment,
  overrides: Partial<CryptoRequestClosed> = {},
): CryptoRequestClosed {
  return {
    payment_id: payment.payment_id,
    reference: payment.external_id!,
    reason: 'expired',
    received_base_units: '0',
    ...overrides,
  };
}

/** One new USDC transfer (one token) that landed after the window. */
export function aCryptoTransferUnapplied(
  payment: ReportedPayment,
  overrides: Partial<CryptoTransferUnapplied> = {},
): CryptoTransferUnapplied {
  return {
    payment_id: payment.payment_id,
    reference: payment.external_id!,
    signature: aSignature(),
    amount_base_units: '1000000',
    mint: USDC_MINT,
    reason: 'after_expiry',
    detected_at: new Date().toISOString(),
    ...overrides,
  };
}

/** The rail carried the refund out, under a new devolução id. */
export function aRefundSettlement(
  refund: { refund_id: string; payment_id: string },
  overrides: Partial<RefundSettled> = {},
): RefundSettled {
  return {
    refund_id: refund.refund_id,
    payment_id: refund.payment_id,
    outcome: 'succeeded',
    external_id: `D${newPublicId('d').replace(/[^A-Za-z0-9]/g, '')}`,
    failure_reason: null,
    ...overrides,
  };
}
