import type {
  AmountParts,
  CryptoInstructions,
  PaymentCustody,
  PaymentMethod,
  PaymentPayer,
  PaymentRecord,
  PaymentStatus,
  PaymentView,
  PixInstructions,
  Token,
} from '@gateway/contracts';

/** A payment as this service stores it (the entity has this shape). */
export interface StoredPayment {
  id: string;
  businessId: string;
  method: PaymentMethod;
  status: PaymentStatus;
  amountCentavos: number;
  feeCentavos: number;
  /** A crypto payment's token; null for PIX. */
  token: Token | null;
  metadata: string | null;
  /** What the payment is for, as created. */
  description: string | null;
  transactionId: string | null;
  externalId: string | null;
  failureCode: string | null;
  failureReason: string | null;
  customerId: string | null;
  /** What succeeded refunds returned. */
  refundedCentavos: number;
  /** What refunds not failed hold (in flight and succeeded). */
  refundReservedCentavos: number;
  /** Snapshot of what the payer was last shown: PIX code/QR or crypto link/QR. */
  instructions: PixInstructions | CryptoInstructions | null;
  /** Who holds the money paid: `direct` when it went into the business's own PSP account. */
  custody: PaymentCustody;
  /** Who paid, as the rail reported it (PIX: name and masked document; crypto: the paying owner's address). */
  payerName: string | null;
  payerDocumentMasked: string | null;
  payerAddress: string | null;
  createdAt: Date;
  updatedAt: Date;
  /** How many times it has changed (every stored change adds one). */
  version: number;
  /** A subscription's cycle: its subscription and number; null for any other payment. */
  subscriptionId?: string | null;
  cycle?: number | null;
  /** A due-date payment: the fee terms it was created under (its fee is computed again on what is paid). */
  feePercentBps?: number | null;
  feeFixedCentavos?: number | null;
  /** A due-date payment once paid: what was paid and its parts. */
  amountPaidCentavos?: number | null;
  paidOriginalCentavos?: number | null;
  paidFineCentavos?: number | null;
  paidInterestCentavos?: number | null;
  paidReductionCentavos?: number | null;
  paidDiscountCentavos?: number | null;
}

/** What a due-date payment was paid, part by part; null before it is paid and for any other payment. */
export function amountPartsOf(payment: StoredPayment): AmountParts | null {
  if (payment.amountPaidCentavos == null) return null;
  return {
    original: payment.paidOriginalCentavos ?? 0,
    fine: payment.paidFineCentavos ?? 0,
    interest: payment.paidInterestCentavos ?? 0,
    reduction: payment.paidReductionCentavos ?? 0,
    discount: payment.paidDiscountCentavos ?? 0,
  };
}

/** Whether it is a PIX payment with a due date (its charge a cobv): its instructions carry the due date. */
export function isDueDatePayment(payment: Pick<StoredPayment, 'instructions'>): boolean {
  return (
    payment.instructions !== null && 'due_date' in payment.instructions && !!payment.instructions.due_date
  );
}

/** What the payment's refunds and disputes may take back: what was paid (a due-date payment's may differ). */
export function paidCentavosOf(
  payment: Pick<StoredPayment, 'amountCentavos' | 'amountPaidCentavos'>,
): number {
  return payment.amountPaidCentavos ?? payment.amountCentavos;
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
    ...(payment.description === null ? {} : { description: payment.description }),
    customer_id: payment.customerId,
    refunded_centavos: payment.refundedCentavos,
    ...dueDateFields(payment),
    payer: payerOf(payment),
    // A subscription's cycle names it; any other payment reads as it always did.
    ...(payment.subscriptionId
      ? { subscription_id: payment.subscriptionId, cycle: payment.cycle ?? null }
      : {}),
    // Internal (the ledger's token holdings); carried for crypto only, so a PIX record is as it was.
    ...(payment.token === null ? {} : { token: payment.token }),
    // Internal too (the ledger counts its token holdings in base units): the amount the payer was asked for.
    ...(payment.instructions !== null && 'amount_base_units' in payment.instructions
      ? { amount_base_units: payment.instructions.amount_base_units }
      : {}),
    // Internal (the ledger books only the fee of money paid into the business's own account); carried only then.
    ...(payment.custody === 'direct' ? { custody: payment.custody } : {}),
    // Internal: copies kept elsewhere take a record only over an older one.
    version: payment.version,
    refund_reserved_centavos: payment.refundReservedCentavos,
    created_at: payment.createdAt.toISOString(),
    updated_at: payment.updatedAt.toISOString(),
  };
}

/**
 * A due-date payment has `due_date` and `payable_until` where any other has `expires_at` (docs/adr/0048), and once paid
 * what was paid and its parts; a payment of any other kind reads as it always did.
 */
function dueDateFields(
  payment: StoredPayment,
): Pick<
  PaymentRecord,
  'expires_at' | 'due_date' | 'payable_until' | 'amount_paid_centavos' | 'amount_parts'
> {
  const instructions = payment.instructions;
  if (!instructions || !('due_date' in instructions) || !instructions.due_date)
    return { expires_at: instructions?.expires_at ?? null };
  return {
    expires_at: null,
    due_date: instructions.due_date,
    payable_until: instructions.payable_until ?? null,
    amount_paid_centavos: payment.amountPaidCentavos ?? null,
    amount_parts: amountPartsOf(payment),
  };
}

/** Who paid, in its rail's shape; null when the rail did not say (and always before the payment is paid). */
function payerOf(payment: StoredPayment): PaymentPayer | null {
  if (payment.method === 'crypto')
    return payment.payerAddress === null ? null : { address: payment.payerAddress };
  if (payment.payerName === null && payment.payerDocumentMasked === null) return null;
  return { name: payment.payerName, document_masked: payment.payerDocumentMasked };
}

/** The stored columns of what a rail reported of the payer (all null when it reported nothing). */
export function payerColumns(
  payer: PaymentPayer | null | undefined,
): Pick<StoredPayment, 'payerName' | 'payerDocumentMasked' | 'payerAddress'> {
  if (payer && 'address' in payer)
    return { payerName: null, payerDocumentMasked: null, payerAddress: payer.address };
  return {
    payerName: payer?.name ?? null,
    payerDocumentMasked: payer?.document_masked ?? null,
    payerAddress: null,
  };
}

/** The record plus the rail instructions under the method's key; `withInstructions: false` leaves them out. */
export function toView(payment: StoredPayment, withInstructions = true): PaymentView {
  const view: PaymentView = { payment: toRecord(payment) };
  if (!withInstructions || payment.instructions === null) return view;
  // Instructions sit under their method's key (`pix`, `crypto`), as the rail that made them stored them.
  return { ...view, [payment.method]: payment.instructions };
}
