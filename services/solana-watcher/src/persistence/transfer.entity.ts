import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { TransferDestination } from '../domain/settlement';
import { bigintColumn, slotColumn } from './numeric';

/** Every transfer seen for one of our references, once per (signature, reference), whatever it was applied to. */
@Entity({ name: 'transfers' })
export class TransferEntity {
  @PrimaryColumn({ type: 'text' })
  signature!: string;

  @PrimaryColumn({ type: 'text' })
  reference!: string;

  @Column({ type: 'text', name: 'payment_id' })
  paymentId!: string;

  @Column({ type: 'numeric', transformer: bigintColumn })
  amount!: bigint;

  @Column({ type: 'text' })
  mint!: string;

  @Column({ type: 'bigint', transformer: slotColumn })
  slot!: number;

  @Column({ type: 'timestamptz', name: 'block_time', nullable: true })
  blockTime!: Date | null;

  @Column({ type: 'text', name: 'applied_to' })
  appliedTo!: TransferDestination;

  @CreateDateColumn({ type: 'timestamptz', name: 'recorded_at' })
  recordedAt!: Date;
}
