import type {
  CryptoInstructions,
  PaymentMethod,
  PaymentRecord,
  PaymentStatus,
  PaymentView,
  PixInstructions,
} from '@gateway/contracts';

/** A payment as this service stores it (the entity has this shape). */
export interface StoredPayment {
  id: string;
  businessId: string;
  method: PaymentMethod;
  status: PaymentStatus;
  amountCentavos: number;
  feeCentavos: number;
  metadata: string | null;
  transactionId: string | null;
  externalId: string | null;
  failureCode: string | null;
  failureReason: string | null;
  customerId: string | null;
  /** What succeeded refunds returned. */
  refundedCentavos: number;
  /** Snapshot of what the payer was last shown: PIX code/QR or crypto link/QR. */
  instructions: PixInstructions | CryptoInstructions | null;
  createdAt: Date;
  updatedAt: Date;
}

export function toRecord(payment: StoredPayment): PaymentRecord {
  return {
    payment_id: payment.id,
    transaction_id: payment.transactionId,
    business_id: payment.businessId,
    method: payment.method,
    status: payment.status,
    amount_centavos: payment.amountCentavos,
    fee_centavos: payment.feeCentavos,
    external_id: payment.externalId,
    failure_code: payment.failureCode,
    failure_reason: payment.failureReason,
    metadata: payment.metadata,
    customer_id: payment.customerId,
    refunded_centavos: payment.refundedCentavos,
    created_at: payment.createdAt.toISOString(),
    updated_at: payment.updatedAt.toISOString(),
  };
}

/** The record plus the rail instructions under the method's key; `withInstructions: false` leaves them out. */
export function toView(payment: StoredPayment, withInstructions = true): PaymentView {
  const view: PaymentView = { payment: toRecord(payment) };
  if (!withInstructions || payment.instructions === null) return view;
  // Instructions sit under their method's key (`pix`, `crypto`), as the rail that made them stored them.
  return { ...view, [payment.method]: payment.instructions };
}
