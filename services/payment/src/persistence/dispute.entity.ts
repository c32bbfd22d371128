import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { DisputeStatus } from '@gateway/contracts';
import { bigintAsNumber } from '@gateway/persistence';

/** A dispute (MED) of a paid PIX payment, one per MED devolução (migration 1764402600000). */
@Entity({ name: 'disputes' })
export class DisputeEntity {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text', name: 'payment_id' })
  paymentId!: string;

  @Column({ type: 'text', name: 'business_id' })
  businessId!: string;

  @Column({ type: 'text' })
  method!: 'pix';

  /** The MED devolução: `<endToEndId>/<devolução id>`. */
  @Column({ type: 'text', name: 'external_id' })
  externalId!: string;

  @Column({ type: 'bigint', name: 'amount_centavos', transformer: bigintAsNumber })
  amountCentavos!: number;

  @Column({ type: 'text' })
  status!: DisputeStatus;

  @Column({ type: 'text', nullable: true })
  reason!: string | null;

  /** When the business's defence reached the PSP (migration 1764403000000); null until then. */
  @Column({ type: 'timestamptz', name: 'defence_submitted_at', nullable: true })
  defenceSubmittedAt!: Date | null;

  @Column({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;

  @Column({ type: 'timestamptz', name: 'updated_at' })
  updatedAt!: Date;
}
