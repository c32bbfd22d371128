import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { PixKeyType } from '@gateway/contracts';

/** `requested` until the PSP holds the send, `processing` while it is EM_PROCESSAMENTO; the last two are final. */
export type PayoutStatus = 'requested' | 'processing' | 'paid' | 'failed';

/** A failed send's error as the PSP's callback told it (`gnExtras.erro`: codigo, origem, motivo). */
export interface ReportedSendFailure {
  code: string;
  origin: string;
  reason: string;
}

const bigintAsNumber = {
  to: (value: number) => value,
  from: (value: string) => Number(value),
};

/** One payout the ledger asked for, carried out as one Pix sent from the platform's account (Efí "envio de Pix"). */
@Entity({ name: 'payouts' })
export class PayoutEntity {
  @PrimaryColumn({ type: 'text', name: 'payout_id' })
  payoutId!: string;

  @Column({ type: 'text', name: 'business_id' })
  businessId!: string;

  /** Derived from the payout id (`idEnvioOf`): every attempt names the same send. */
  @Column({ type: 'text', name: 'id_envio' })
  idEnvio!: string;

  @Column({ type: 'bigint', name: 'amount_centavos', transformer: bigintAsNumber })
  amountCentavos!: number;

  @Column({ type: 'text', name: 'pix_key' })
  pixKey!: string;

  @Column({ type: 'text', name: 'pix_key_type' })
  pixKeyType!: PixKeyType;

  @Column({ type: 'text', name: 'holder_document' })
  holderDocument!: string;

  @Column({ type: 'text' })
  status!: PayoutStatus;

  /** The PIX's endToEndId, once the PSP holds the send. */
  @Column({ type: 'text', name: 'end_to_end_id', nullable: true })
  endToEndId!: string | null;

  @Column({ type: 'text', name: 'failure_reason', nullable: true })
  failureReason!: string | null;

  /**
   * The failure a PSP callback told of the send (Efí's reads do not repeat it), kept while the payout is open so that
   * whichever path settles it, after a restart too, fails it with the PSP's reason.
   */
  @Column({ type: 'jsonb', name: 'reported_failure', nullable: true })
  reportedFailure!: ReportedSendFailure | null;

  /** Sends tried that did not go through (the PSP unreachable, the account misconfigured...). */
  @Column({ type: 'integer' })
  attempts!: number;

  /** Why the last attempt did not go through, while the payout waits for the next one. */
  @Column({ type: 'text', name: 'held_reason', nullable: true })
  heldReason!: string | null;

  @Column({ type: 'timestamptz', name: 'next_attempt_at' })
  nextAttemptAt!: Date;

  @Column({ type: 'timestamptz', name: 'claimed_until', nullable: true })
  claimedUntil!: Date | null;

  /** The request's correlation id, carried by the settlement whichever path settles it. */
  @Column({ type: 'text', name: 'correlation_id' })
  correlationId!: string;

  @Column({ type: 'timestamptz', name: 'requested_at' })
  requestedAt!: Date;

  @Column({ type: 'timestamptz', name: 'settled_at', nullable: true })
  settledAt!: Date | null;

  @Column({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;

  @Column({ type: 'timestamptz', name: 'updated_at' })
  updatedAt!: Date;
}
