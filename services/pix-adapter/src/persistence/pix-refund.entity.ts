import { Column, Entity, PrimaryColumn } from 'typeorm';

/** `requested` until the PSP holds the devolução, `processing` while it is EM_PROCESSAMENTO; the last two are final. */
export type PixRefundStatus = 'requested' | 'processing' | 'succeeded' | 'failed';

const bigintAsNumber = {
  to: (value: number) => value,
  from: (value: string) => Number(value),
};

/**
 * One refund the payment service asked for, carried out as one devolução of the PIX that paid its charge; or one
 * return of held funds the operator asked for, a devolução of the Pix the funds came with.
 */
@Entity({ name: 'pix_refunds' })
export class PixRefundEntity {
  @PrimaryColumn({ type: 'text', name: 'refund_id' })
  refundId!: string;

  @Column({ type: 'text', name: 'payment_id' })
  paymentId!: string;

  /** The held received funds this devolução returns for the operator (migration 1764401100001); null for a refund. */
  @Column({ type: 'text', name: 'funds_id', nullable: true })
  fundsId!: string | null;

  /** The PIX returned; null only for a refund failed because its payment has none. */
  @Column({ type: 'text', name: 'end_to_end_id', nullable: true })
  endToEndId!: string | null;

  @Column({ type: 'text', name: 'devolucao_id' })
  devolucaoId!: string;

  @Column({ type: 'bigint', name: 'amount_centavos', transformer: bigintAsNumber })
  amountCentavos!: number;

  /** Sent as the devolução's `descricao`. */
  @Column({ type: 'text', nullable: true })
  descricao!: string | null;

  @Column({ type: 'text' })
  status!: PixRefundStatus;

  @Column({ type: 'text', name: 'failure_reason', nullable: true })
  failureReason!: string | null;

  /** The refund request's correlation id, carried by the settlement whichever path settles it. */
  @Column({ type: 'text', name: 'correlation_id' })
  correlationId!: string;

  @Column({ type: 'timestamptz', name: 'claimed_until', nullable: true })
  claimedUntil!: Date | null;

  @Column({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;

  @Column({ type: 'timestamptz', name: 'updated_at' })
  updatedAt!: Date;
}
