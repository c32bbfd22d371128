import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintAsNumber } from '@gateway/persistence';

/** One money movement, keyed by what caused it (an event id, `settle:<payment_id>`); written once, never changed. */
@Entity({ name: 'journals' })
export class JournalEntity {
  @PrimaryColumn({ type: 'bigint', transformer: bigintAsNumber })
  id!: number;

  @Column({ type: 'text', name: 'cause_key' })
  causeKey!: string;

  @Column({ type: 'text' })
  kind!: string;

  @Column({ type: 'text', name: 'business_id', nullable: true })
  businessId!: string | null;

  @Column({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;
}
