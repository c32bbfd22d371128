import { Column, Entity, PrimaryColumn } from 'typeorm';
import type {
  CryptoInstructions,
  PaymentCustody,
  PaymentMethod,
  PaymentStatus,
  PixInstructions,
  Token,
} from '@gateway/contracts';
import type { StoredPayment } from '../domain/payment-record';
import { bigintAsNumber } from '@gateway/persistence';

@Entity({ name: 'payments' })
export class PaymentEntity implements StoredPayment {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text', name: 'business_id' })
  businessId!: string;

  /** Kept for the rails: the name shown to the payer when an amount change makes new instructions. */
  @Column({ type: 'text', name: 'business_name' })
  businessName!: string;

  @Column({ type: 'text' })
  method!: PaymentMethod;

  @Column({ type: 'text' })
  status!: PaymentStatus;

  @Column({ type: 'bigint', name: 'amount_centavos', transformer: bigintAsNumber })
  amountCentavos!: number;

  @Column({ type: 'bigint', name: 'fee_centavos', transformer: bigintAsNumber })
  feeCentavos!: number;

  @Column({ type: 'text', nullable: true })
  token!: Token | null;

  @Column({ type: 'text', nullable: true })
  metadata!: string | null;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  /** Who holds the money paid: `direct` when the PIX charge was at the business's own PSP account. */
  @Column({ type: 'text' })
  custody!: PaymentCustody;

  @Column({ type: 'text', name: 'transaction_id', nullable: true })
  transactionId!: string | null;

  @Column({ type: 'text', name: 'external_id', nullable: true })
  externalId!: string | null;

  @Column({ type: 'text', name: 'failure_code', nullable: true })
  failureCode!: string | null;

  @Column({ type: 'text', name: 'failure_reason', nullable: true })
  failureReason!: string | null;

  @Column({ type: 'text', name: 'customer_id', nullable: true })
  customerId!: string | null;

  /** When it was paid: dates the PIX refund window. */
  @Column({ type: 'timestamptz', name: 'paid_at', nullable: true })
  paidAt!: Date | null;

  /** Refunds not failed (pending or succeeded): what is no longer refundable. */
  @Column({ type: 'bigint', name: 'refund_reserved_centavos', transformer: bigintAsNumber })
  refundReservedCentavos!: number;

  /** Disputes (MED) not won, open or lost: what a refund or another MED can no longer claim. */
  @Column({ type: 'bigint', name: 'disputed_centavos', transformer: bigintAsNumber })
  disputedCentavos!: number;

  /** Refunds that succeeded: the record's `refunded_centavos`. */
  @Column({ type: 'bigint', name: 'refunded_centavos', transformer: bigintAsNumber })
  refundedCentavos!: number;

  /** PIX: the payer's name as the PSP reported it (once paid). */
  @Column({ type: 'text', name: 'payer_name', nullable: true })
  payerName!: string | null;

  /** PIX: the payer's CPF or CNPJ, masked before it reached this service (once paid). */
  @Column({ type: 'text', name: 'payer_document_masked', nullable: true })
  payerDocumentMasked!: string | null;

  /** Crypto: the owner of the token account that paid (once paid). */
  @Column({ type: 'text', name: 'payer_address', nullable: true })
  payerAddress!: string | null;

  /** A due-date payment: the fee terms it was created under, its fee computed again on what is paid. */
  @Column({ type: 'integer', name: 'fee_percent_bps', nullable: true })
  feePercentBps?: number | null;

  @Column({ type: 'bigint', name: 'fee_fixed_centavos', nullable: true, transformer: bigintAsNumber })
  feeFixedCentavos?: number | null;

  /** A due-date payment once paid: what was paid, and its parts (original + fine + interest − reduction − discount). */
  @Column({ type: 'bigint', name: 'amount_paid_centavos', nullable: true, transformer: bigintAsNumber })
  amountPaidCentavos?: number | null;

  @Column({ type: 'bigint', name: 'paid_original_centavos', nullable: true, transformer: bigintAsNumber })
  paidOriginalCentavos?: number | null;

  @Column({ type: 'bigint', name: 'paid_fine_centavos', nullable: true, transformer: bigintAsNumber })
  paidFineCentavos?: number | null;

  @Column({ type: 'bigint', name: 'paid_interest_centavos', nullable: true, transformer: bigintAsNumber })
  paidInterestCentavos?: number | null;

  @Column({ type: 'bigint', name: 'paid_reduction_centavos', nullable: true, transformer: bigintAsNumber })
  paidReductionCentavos?: number | null;

  @Column({ type: 'bigint', name: 'paid_discount_centavos', nullable: true, transformer: bigintAsNumber })
  paidDiscountCentavos?: number | null;

  /** A subscription's cycle: the subscription and the cycle's number (unique together). */
  @Column({ type: 'text', name: 'subscription_id', nullable: true })
  subscriptionId?: string | null;

  @Column({ type: 'integer', nullable: true })
  cycle?: number | null;

  @Column({ type: 'jsonb', nullable: true })
  instructions!: PixInstructions | CryptoInstructions | null;

  @Column({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;

  @Column({ type: 'timestamptz', name: 'updated_at' })
  updatedAt!: Date;

  @Column({ type: 'integer' })
  version!: number;
}
