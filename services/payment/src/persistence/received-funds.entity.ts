import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { ReceivedFundsKind } from '@gateway/contracts';
import { bigintAsNumber } from './bigint-transformer';

/** Money a rail reported that did not (or not only) settle a payment: kept so it is never silently lost. */
export type { ReceivedFundsKind };

@Entity({ name: 'received_funds' })
export class ReceivedFundsEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ type: 'text', name: 'payment_id' })
  paymentId!: string;

  @Column({ type: 'text' })
  kind!: ReceivedFundsKind;

  @Column({ type: 'text' })
  rail!: 'pix' | 'crypto';

  /** PIX endToEndId or Solana signature/reference: with kind and payment, what makes a record unique. */
  @Column({ type: 'text', name: 'rail_reference' })
  railReference!: string;

  @Column({ type: 'bigint', name: 'amount_centavos', nullable: true, transformer: bigintAsNumber })
  amountCentavos!: number | null;

  /** Token base units for crypto, as a decimal string. */
  @Column({ type: 'text', name: 'amount_base_units', nullable: true })
  amountBaseUnits!: string | null;

  @Column({ type: 'timestamptz', name: 'recorded_at' })
  recordedAt!: Date;
}
