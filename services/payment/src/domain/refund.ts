import {
  refundFailed,
  type RefundedExcess,
  type RefundRequested,
  refundSucceeded,
  type MessageDefinition,
  type PaymentStatus,
  type RefundEventPayload,
  type RefundRecord,
  type RefundSettled,
} from '@gateway/contracts';
import { disputableCentavos } from './dispute';
import { invalidStatusMessage } from './payment-status';

const DAY_MS = 24 * 60 * 60 * 1000;

/** What a refund request is decided on: the payment as it is, under its lock. */
export interface RefundablePayment {
  status: PaymentStatus;
  amountCentavos: number;
  /** A due-date payment's amount paid: what its refunds return at most (absent or null: the amount). */
  amountPaidCentavos?: number | null;
  /** Refunds not failed: what is no longer refundable. */
  refundReservedCentavos: number;
  /** Disputes (MED) not won: money the payer's bank claims back already. */
  disputedCentavos: number;
  paidAt: Date | null;
}

export type RefundDecision =
  | { ok: true; amountCentavos: number }
  | { ok: false; code: 'INVALID_STATUS' | 'INVALID_AMOUNT' | 'REFUND_NOT_ALLOWED'; message: string };

/**
 * Whether a refund of `requested` centavos (null: the whole refundable rest) may be made now (docs/refunds.md):
 * only of a paid payment, within the rail's window after payment (`windowDays`, null for none), and never past what
 * refunds not failed have left.
 */
export function decideRefund(
  payment: RefundablePayment,
  requested: number | null,
  windowDays: number | null,
  now: Date,
): RefundDecision {
  if (payment.status !== 'paid')
    return { ok: false, code: 'INVALID_STATUS', message: invalidStatusMessage(payment.status) };
  const paidAt = payment.paidAt ?? now;
  if (windowDays !== null && now.getTime() - paidAt.getTime() > windowDays * DAY_MS)
    return {
      ok: false,
      code: 'REFUND_NOT_ALLOWED',
      message: `O prazo de ${windowDays} dias para devolver este pagamento já passou.`,
    };
  const rest = disputableCentavos(payment);
  const amountCentavos = requested ?? rest;
  if (amountCentavos <= 0)
    return { ok: false, code: 'INVALID_AMOUNT', message: 'Este pagamento já foi totalmente devolvido.' };
  if (amountCentavos > rest)
    return {
      ok: false,
      code: 'INVALID_AMOUNT',
      message: `O valor excede o que ainda pode ser devolvido (${rest} centavos).`,
    };
  return { ok: true, amountCentavos };
}

/**
 * Whether a refund of `amountCentavos` completes the payment's refunds (with those not failed, its whole amount). That
 * refund also returns the overpayment's excess, when it is still held: a full refund gives the payer back all it sent,
 * and the excess goes back once, either so or by hand (never both: the database keeps it).
 */
export function completesRefunds(payment: RefundablePayment, amountCentavos: number): boolean {
  return (
    payment.refundReservedCentavos + amountCentavos === (payment.amountPaidCentavos ?? payment.amountCentavos)
  );
}

/** What the rail is asked to carry out for a refund, the same on its first request and on every resend. */
export function refundRequest(
  refund: { id: string; paymentId: string; amountCentavos: number; reason: string | null },
  paymentAmountCentavos: number,
  excess: RefundedExcess | null,
): RefundRequested {
  return {
    refund_id: refund.id,
    payment_id: refund.paymentId,
    amount_centavos: refund.amountCentavos,
    payment_amount_centavos: paymentAmountCentavos,
    reason: refund.reason,
    // Only when it carries one: a rail that predates the field reads the same message as before.
    ...(excess ? { excess } : {}),
  };
}

/** The event that tells the merchant how a refund ended (`refund.succeeded` / `refund.failed`). */
export function refundSettledEvent(outcome: RefundSettled['outcome']): MessageDefinition<RefundEventPayload> {
  return outcome === 'succeeded' ? refundSucceeded : refundFailed;
}

/** A refund as this service stores it (the entity has this shape). */
export interface StoredRefund {
  id: string;
  paymentId: string;
  businessId: string;
  method: RefundRecord['method'];
  amountCentavos: number;
  status: RefundRecord['status'];
  reason: string | null;
  failureReason: string | null;
  externalId: string | null;
  returnedFundsId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export function toRefundRecord(refund: StoredRefund): RefundRecord {
  return {
    refund_id: refund.id,
    payment_id: refund.paymentId,
    business_id: refund.businessId,
    method: refund.method,
    amount_centavos: refund.amountCentavos,
    status: refund.status,
    reason: refund.reason,
    failure_reason: refund.failureReason,
    external_id: refund.externalId,
    returned_funds_id: refund.returnedFundsId,
    created_at: refund.createdAt.toISOString(),
    updated_at: refund.updatedAt.toISOString(),
  };
}
