import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintAsNumber } from '@gateway/persistence';

/** One line of a journal: a debit (positive) or credit (negative) to one account; written once, never changed. */
@Entity({ name: 'entries' })
export class EntryEntity {
  @PrimaryColumn({ type: 'bigint', transformer: bigintAsNumber })
  id!: number;

  @Column({ type: 'bigint', name: 'journal_id', transformer: bigintAsNumber })
  journalId!: number;

  @Column({ type: 'text' })
  account!: string;

  /** The business whose balance the entry moves; null for the platform's accounts. */
  @Column({ type: 'text', name: 'business_id', nullable: true })
  businessId!: string | null;

  @Column({ type: 'bigint', name: 'amount_centavos', transformer: bigintAsNumber })
  amountCentavos!: number;
}
