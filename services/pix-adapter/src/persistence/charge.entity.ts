import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { TraceHeaders } from '@gateway/observability';

/** `cancelled`: the payment was cancelled and its cob removed at the PSP. */
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

  @Column({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;

  @Column({ type: 'timestamptz', name: 'updated_at' })
  updatedAt!: Date;
}
