import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { PayoutStatus, PixKeyType } from '@gateway/contracts';
import { bigintAsNumber } from '@gateway/persistence';

/** A business's payout: its amount reserved when requested, its destination as it was then, and its outcome. */
@Entity({ name: 'payouts' })
export class PayoutEntity {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text', name: 'business_id' })
  businessId!: string;

  @Column({ type: 'bigint', name: 'amount_centavos', transformer: bigintAsNumber })
  amountCentavos!: number;

  @Column({ type: 'text' })
  status!: PayoutStatus;

  @Column({ type: 'text', name: 'pix_key' })
  pixKey!: string;

  @Column({ type: 'text', name: 'pix_key_type' })
  pixKeyType!: PixKeyType;

  @Column({ type: 'text', name: 'holder_document' })
  holderDocument!: string;

  @Column({ type: 'text', name: 'end_to_end_id', nullable: true })
  endToEndId!: string | null;

  @Column({ type: 'text', name: 'failure_reason', nullable: true })
  failureReason!: string | null;

  /** The command that requested it: one payout per request. */
  @Column({ type: 'text', name: 'request_id' })
  requestId!: string;

  @Column({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;

  @Column({ type: 'timestamptz', name: 'updated_at' })
  updatedAt!: Date;

  @Column({ type: 'timestamptz', name: 'settled_at', nullable: true })
  settledAt!: Date | null;
}
