import { Column, Entity, PrimaryColumn } from 'typeorm';
import type {
  AuthorizationJourney,
  PixInstructions,
  SubscriptionCanceller,
  SubscriptionRetryPolicy,
} from '@gateway/contracts';

/** API Pix `StatusRec`. */
export type RecStatus = 'CRIADA' | 'APROVADA' | 'REJEITADA' | 'EXPIRADA' | 'CANCELADA';

/** A subscription's recurrence at the PSP (`/rec`); `idRec` null while it is being opened. */
@Entity({ name: 'recurrences' })
export class RecurrenceEntity {
  @PrimaryColumn({ type: 'text', name: 'subscription_id' })
  subscriptionId!: string;

  @Column({ type: 'text', name: 'business_id' })
  businessId!: string;

  @Column({ type: 'text' })
  journey!: AuthorizationJourney;

  @Column({ type: 'text', name: 'retry_policy' })
  retryPolicy!: SubscriptionRetryPolicy;

  @Column({ type: 'text', name: 'id_rec', nullable: true })
  idRec!: string | null;

  /** What the PSP last said of it (null: not opened yet). */
  @Column({ type: 'text', name: 'psp_status', nullable: true })
  pspStatus!: RecStatus | null;

  @Column({ type: 'text', name: 'id_solic_rec', nullable: true })
  idSolicRec!: string | null;

  @Column({
    type: 'bigint',
    name: 'loc_id',
    nullable: true,
    transformer: { to: (v: unknown) => v, from: (v: string | null) => (v === null ? null : Number(v)) },
  })
  locId!: number | null;

  @Column({ type: 'text', name: 'first_payment_id', nullable: true })
  firstPaymentId!: string | null;

  @Column({ type: 'text', name: 'first_payment_txid', nullable: true })
  firstPaymentTxid!: string | null;

  /** Journeys 2 and 3: the QR code the payer is shown to authorize. */
  @Column({ type: 'jsonb', name: 'authorization_shown', nullable: true })
  authorizationShown!: PixInstructions | null;

  @Column({ type: 'timestamptz', name: 'authorization_expires_at' })
  authorizationExpiresAt!: Date;

  @Column({ type: 'text', name: 'cancelled_by', nullable: true })
  cancelledBy!: SubscriptionCanceller | null;

  /** The business's own PSP account it was opened at; null: the platform's. */
  @Column({ type: 'text', name: 'psp_account_id', nullable: true })
  pspAccountId!: string | null;

  @Column({ type: 'timestamptz', name: 'claimed_until', nullable: true })
  claimedUntil!: Date | null;

  @Column({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;

  @Column({ type: 'timestamptz', name: 'updated_at' })
  updatedAt!: Date;
}
