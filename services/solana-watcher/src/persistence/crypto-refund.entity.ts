import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { RefundPayout, RefundStatus } from '../domain/refund';
import { bigintColumn, slotColumn } from './numeric';

/**
 * A refund carried out on chain (see migration 1732400121000 for its state machine), or the operator's return of held
 * funds to their payer (`funds_id`).
 */
@Entity({ name: 'crypto_refunds' })
export class CryptoRefundEntity {
  @PrimaryColumn({ type: 'text', name: 'refund_id' })
  refundId!: string;

  @Column({ type: 'text', name: 'payment_id' })
  paymentId!: string;

  /** The held received funds this transfer returns for the operator (migration 1764401100002); null for a refund. */
  @Column({ type: 'text', name: 'funds_id', nullable: true })
  fundsId!: string | null;

  /** The merchant's reason; only the sandbox failing word reaches the chain (`refundMemo`). */
  @Column({ type: 'text', nullable: true })
  reason!: string | null;

  @Column({ type: 'text' })
  status!: RefundStatus;

  @Column({ type: 'text', nullable: true })
  mint!: string | null;

  @Column({ type: 'integer', nullable: true })
  decimals!: number | null;

  @Column({ type: 'numeric', name: 'amount_base_units', nullable: true, transformer: bigintColumn })
  amountBaseUnits!: bigint | null;

  /** Who gets what: `amount_base_units` as a decimal string. */
  @Column({ type: 'jsonb' })
  recipients!: RefundPayout[];

  @Column({ type: 'text', nullable: true })
  signature!: string | null;

  /** base64 wire bytes of the signed transaction, sent again as they are until it lands or its blockhash expires. */
  @Column({ type: 'text', name: 'signed_transaction', nullable: true })
  signedTransaction!: string | null;

  @Column({ type: 'bigint', name: 'last_valid_block_height', nullable: true, transformer: slotColumn })
  lastValidBlockHeight!: number | null;

  /** The blockhash every attempt of the transaction on record shares (migration 1764402700000). */
  @Column({ type: 'text', nullable: true })
  blockhash!: string | null;

  /** Micro-lamports per compute unit the transaction on record offers. */
  @Column({ type: 'bigint', name: 'compute_unit_price', nullable: true, transformer: slotColumn })
  computeUnitPrice!: number | null;

  @Column({ type: 'text', name: 'failure_reason', nullable: true })
  failureReason!: string | null;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;

  @UpdateDateColumn({ type: 'timestamptz', name: 'updated_at' })
  updatedAt!: Date;
}
