import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { PaymentMethod, RefundStatus } from '@gateway/contracts';
import type { StoredRefund } from '../domain/refund';
import { bigintAsNumber } from '@gateway/persistence';

/** A refund of (part of) a paid payment; the rail carries it out and reports back (migration 1732400100000). */
@Entity({ name: 'refunds' })
export class RefundEntity implements StoredRefund {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text', name: 'payment_id' })
  paymentId!: string;

  @Column({ type: 'text', name: 'business_id' })
  businessId!: string;

  @Column({ type: 'text' })
  method!: PaymentMethod;

  @Column({ type: 'bigint', name: 'amount_centavos', transformer: bigintAsNumber })
  amountCentavos!: number;

  @Column({ type: 'text' })
  status!: RefundStatus;

  @Column({ type: 'text', nullable: true })
  reason!: string | null;

  @Column({ type: 'text', name: 'failure_reason', nullable: true })
  failureReason!: string | null;

  /** The PIX devolução id or the Solana transaction signature. */
  @Column({ type: 'text', name: 'external_id', nullable: true })
  externalId!: string | null;

  /** The received funds (an overpayment's excess) this refund also returns; fixed at its creation. */
  @Column({ type: 'text', name: 'returned_funds_id', nullable: true })
  returnedFundsId!: string | null;

  @Column({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;

  @Column({ type: 'timestamptz', name: 'updated_at' })
  updatedAt!: Date;
}
