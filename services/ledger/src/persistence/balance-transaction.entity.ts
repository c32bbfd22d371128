import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { BalanceTransactionStatus, BalanceTransactionType } from '@gateway/contracts';
import { bigintAsNumber } from '@gateway/persistence';

/** What one source did to a business's balance: a line of its statement. Only `status` ever changes. */
@Entity({ name: 'balance_transactions' })
export class BalanceTransactionEntity {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text', name: 'business_id' })
  businessId!: string;

  @Column({ type: 'bigint', name: 'journal_id', transformer: bigintAsNumber })
  journalId!: number;

  @Column({ type: 'text' })
  type!: BalanceTransactionType;

  @Column({ type: 'text', name: 'source_id' })
  sourceId!: string;

  @Column({ type: 'bigint', name: 'amount_centavos', transformer: bigintAsNumber })
  amountCentavos!: number;

  @Column({ type: 'bigint', name: 'fee_centavos', transformer: bigintAsNumber })
  feeCentavos!: number;

  @Column({ type: 'bigint', name: 'net_centavos', transformer: bigintAsNumber })
  netCentavos!: number;

  @Column({ type: 'text' })
  status!: BalanceTransactionStatus;

  @Column({ type: 'timestamptz', name: 'available_on' })
  availableOn!: Date;

  /** When it was posted: set by the database as the row is written, never by the writer. */
  @Column({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;

  /** When its event happened (a payment paid, a refund sent): `available_on` counts from it. */
  @Column({ type: 'timestamptz', name: 'occurred_at' })
  occurredAt!: Date;

  @Column({ type: 'text' })
  description!: string;
}
