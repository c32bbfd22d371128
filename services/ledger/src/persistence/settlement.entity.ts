import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintAsNumber } from '@gateway/persistence';

/** A paid payment's net, pending until `availableOn`; `settledAt` once the sweep moved it to available. */
@Entity({ name: 'settlements' })
export class SettlementEntity {
  @PrimaryColumn({ type: 'text', name: 'payment_id' })
  paymentId!: string;

  @Column({ type: 'text', name: 'business_id' })
  businessId!: string;

  @Column({ type: 'text', name: 'balance_transaction_id' })
  balanceTransactionId!: string;

  @Column({ type: 'text', name: 'holding_account' })
  holdingAccount!: string;

  @Column({ type: 'bigint', name: 'net_centavos', transformer: bigintAsNumber })
  netCentavos!: number;

  /** What is left of the net for settlement to move: the net, less the refunds taken from it before. */
  @Column({ type: 'bigint', name: 'remaining_centavos', transformer: bigintAsNumber })
  remainingCentavos!: number;

  @Column({ type: 'timestamptz', name: 'available_on' })
  availableOn!: Date;

  @Column({ type: 'timestamptz', name: 'settled_at', nullable: true })
  settledAt!: Date | null;
}
