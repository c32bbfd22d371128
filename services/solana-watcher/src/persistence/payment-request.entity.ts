import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { Token } from '@gateway/contracts';
import type { TraceHeaders } from '@gateway/observability';
import type { RequestStatus } from '../domain/settlement';
import { bigintColumn } from './numeric';

/** One Solana Pay transfer request: a payment has one open at a time; an amount change supersedes it. */
@Entity({ name: 'payment_requests' })
export class PaymentRequestEntity {
  @PrimaryColumn({ type: 'text' })
  reference!: string;

  @Column({ type: 'text', name: 'payment_id' })
  paymentId!: string;

  @Column({ type: 'text' })
  token!: Token;

  @Column({ type: 'text' })
  mint!: string;

  @Column({ type: 'numeric', name: 'amount_base_units', transformer: bigintColumn })
  amountBaseUnits!: bigint;

  @Column({ type: 'integer' })
  decimals!: number;

  /** Tokens per BRL as `numerator/denominator`. */
  @Column({ type: 'text', name: 'quote_rate' })
  quoteRate!: string;

  @Column({ type: 'text', name: 'quote_source' })
  quoteSource!: string;

  @Column({ type: 'timestamptz', name: 'quote_at' })
  quoteAt!: Date;

  @Column({ type: 'text', name: 'payment_link' })
  paymentLink!: string;

  @Column({ type: 'timestamptz', name: 'expires_at' })
  expiresAt!: Date;

  @Column({ type: 'text' })
  status!: RequestStatus;

  @Column({ type: 'numeric', name: 'received_base_units', transformer: bigintColumn })
  receivedBaseUnits!: bigint;

  /** The transfer that completed the amount. */
  @Column({ type: 'text', name: 'settled_signature', nullable: true })
  settledSignature!: string | null;

  /** The payment flow that opened it, so the events it causes later correlate with it. */
  @Column({ type: 'text', name: 'correlation_id' })
  correlationId!: string;

  /** The trace of the payment's creation, which a transfer found for it continues (null: stored before). */
  @Column({ type: 'jsonb', name: 'trace_context', nullable: true })
  traceContext!: TraceHeaders | null;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;
}
