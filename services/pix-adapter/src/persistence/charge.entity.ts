import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { PixDue } from '@gateway/contracts';
import type { TraceHeaders } from '@gateway/observability';

/** `cancelled`: the payment was cancelled and its cob removed at the PSP. */
/** The API Pix resource a charge is. */
export type ChargeKind = 'cob' | 'cobv' | 'cobr';

export type ChargeStatus = 'active' | 'paid' | 'expired' | 'failed' | 'cancelled';

const bigintAsNumber = {
  to: (value: number) => value,
  from: (value: string) => Number(value),
};

/** One PSP `cob` opened for one payment, with the code and QR the payer was shown for its current revision. */
@Entity({ name: 'charges' })
export class ChargeEntity {
  @PrimaryColumn({ type: 'text' })
  txid!: string;

  @Column({ type: 'text', name: 'payment_id' })
  paymentId!: string;

  @Column({ type: 'bigint', name: 'amount_centavos', transformer: bigintAsNumber })
  amountCentavos!: number;

  @Column({ type: 'text' })
  status!: ChargeStatus;

  @Column({ type: 'integer' })
  revisao!: number;

  @Column({ type: 'text' })
  location!: string;

  @Column({ type: 'text', name: 'merchant_name' })
  merchantName!: string;

  @Column({ type: 'text', name: 'copia_e_cola' })
  copiaECola!: string;

  @Column({ type: 'text', name: 'qr_code' })
  qrCode!: string;

  @Column({ type: 'timestamptz', name: 'expires_at' })
  expiresAt!: Date;

  @Column({ type: 'text', name: 'paid_end_to_end_id', nullable: true })
  paidEndToEndId!: string | null;

  /** The trace of the payment's creation, which the PIX paying it continues (null: opened before traces were kept). */
  @Column({ type: 'jsonb', name: 'trace_context', nullable: true })
  traceContext!: TraceHeaders | null;

  /** The business's own PSP account the cob was opened at; null: the platform's. Every later call goes there. */
  @Column({ type: 'text', name: 'psp_account_id', nullable: true })
  pspAccountId!: string | null;

  /** A charge with a due date (a `cobv`): the rules it was opened with; null: an immediate charge (a `cob`). */
  @Column({ type: 'jsonb', nullable: true })
  due!: PixDue | null;

  /** `cob`, `cobv` (with `due`) or `cobr` (a Pix Automático cycle, with its subscription and number). */
  @Column({ type: 'text', default: 'cob' })
  kind!: ChargeKind;

  @Column({ type: 'text', name: 'subscription_id', nullable: true })
  subscriptionId!: string | null;

  @Column({ type: 'integer', nullable: true })
  cycle!: number | null;

  /** A cycle's failed attempts already reported (pix.cycle.attempt-failed.v1). */
  @Column({ type: 'integer', name: 'attempts_reported', default: 0 })
  attemptsReported!: number;

  @Column({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;

  @Column({ type: 'timestamptz', name: 'updated_at' })
  updatedAt!: Date;
}
