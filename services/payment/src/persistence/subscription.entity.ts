import { Column, Entity, PrimaryColumn } from 'typeorm';
import type {
  AuthorizationJourney,
  PayerAccount,
  PixInstructions,
  SubscriptionCancellationReason,
  SubscriptionCanceller,
  SubscriptionInterval,
  SubscriptionRetryPolicy,
  SubscriptionStatus,
} from '@gateway/contracts';
import { bigintAsNumber } from '@gateway/persistence';
import type { StoredSubscription } from '../domain/subscription';

/** A subscription (Pix Automático); its cycles are payments naming it. Dates are `YYYY-MM-DD`, São Paulo days. */
@Entity({ name: 'subscriptions' })
export class SubscriptionEntity implements StoredSubscription {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text', name: 'business_id' })
  businessId!: string;

  /** Kept for the cycles' payments (the name the rail shows the payer). */
  @Column({ type: 'text', name: 'business_name' })
  businessName!: string;

  @Column({ type: 'text', name: 'customer_id' })
  customerId!: string;

  @Column({ type: 'text', name: 'debtor_name' })
  debtorName!: string;

  @Column({ type: 'text', name: 'debtor_document' })
  debtorDocument!: string;

  @Column({ type: 'text' })
  status!: SubscriptionStatus;

  @Column({ type: 'bigint', name: 'amount_centavos', nullable: true, transformer: bigintAsNumber })
  amountCentavos!: number | null;

  @Column({ type: 'bigint', name: 'minimum_amount_centavos', nullable: true, transformer: bigintAsNumber })
  minimumAmountCentavos!: number | null;

  @Column({ type: 'text' })
  interval!: SubscriptionInterval;

  @Column({ type: 'date', name: 'start_date' })
  startDate!: string;

  @Column({ type: 'date', name: 'end_date', nullable: true })
  endDate!: string | null;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  @Column({ type: 'text', name: 'retry_policy' })
  retryPolicy!: SubscriptionRetryPolicy;

  @Column({ type: 'text' })
  journey!: AuthorizationJourney;

  @Column({ type: 'jsonb', name: 'payer_account', nullable: true })
  payerAccount!: PayerAccount | null;

  @Column({ type: 'text', nullable: true })
  metadata!: string | null;

  /** The PSP's `idRec`. */
  @Column({ type: 'text', name: 'recurrence_id' })
  recurrenceId!: string;

  @Column({ type: 'jsonb', name: 'authorization_instructions', nullable: true })
  authorization!: PixInstructions | null;

  @Column({ type: 'text', name: 'first_payment_id', nullable: true })
  firstPaymentId!: string | null;

  @Column({ type: 'integer', name: 'next_cycle', nullable: true })
  nextCycle!: number | null;

  @Column({ type: 'date', name: 'next_due_date', nullable: true })
  nextDueDate!: string | null;

  /** A varying subscription's next cycle amount, as the merchant set it; null: its minimum. */
  @Column({ type: 'bigint', name: 'next_cycle_amount_centavos', nullable: true, transformer: bigintAsNumber })
  nextCycleAmountCentavos!: number | null;

  /** The sandbox's own clock; null in production (the wall clock's São Paulo day). */
  @Column({ type: 'date', name: 'clock_date', nullable: true })
  clockDate!: string | null;

  /** Sandbox: the day an advance is moving the clock to; null once it is there (or never asked). */
  @Column({ type: 'date', name: 'clock_target', nullable: true })
  clockTarget!: string | null;

  /** Sandbox: until when one runner holds the move to `clockTarget`. */
  @Column({ type: 'timestamptz', name: 'clock_lease_until', nullable: true })
  clockLeaseUntil!: Date | null;

  /** Sandbox: which runner holds that lease (a random token per runner). */
  @Column({ type: 'text', name: 'clock_lease_owner', nullable: true })
  clockLeaseOwner!: string | null;

  /** How many times in a row the next cycle's open failed; reset when a cycle opens. */
  @Column({ type: 'integer', name: 'cycle_open_failures' })
  cycleOpenFailures!: number;

  /** After a failed open, when the scheduler may try the next cycle again; null: whenever it is due. */
  @Column({ type: 'timestamptz', name: 'cycle_open_retry_at', nullable: true })
  cycleOpenRetryAt!: Date | null;

  @Column({ type: 'boolean', name: 'fail_next_cycle' })
  failNextCycle!: boolean;

  /** Sandbox: when the payer's bank was last asked to answer the authorization (simulate authorize or reject). */
  @Column({ type: 'timestamptz', name: 'payer_answer_asked_at', nullable: true })
  payerAnswerAskedAt!: Date | null;

  @Column({ type: 'text', name: 'cancelled_by', nullable: true })
  cancelledBy!: SubscriptionCanceller | null;

  @Column({ type: 'text', name: 'cancellation_reason', nullable: true })
  cancellationReason!: SubscriptionCancellationReason | null;

  @Column({ type: 'text', name: 'psp_reason_code', nullable: true })
  pspReasonCode!: string | null;

  @Column({ type: 'timestamptz', name: 'ended_at', nullable: true })
  endedAt!: Date | null;

  @Column({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;

  @Column({ type: 'timestamptz', name: 'updated_at' })
  updatedAt!: Date;
}
