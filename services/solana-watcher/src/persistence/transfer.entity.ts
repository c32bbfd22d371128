import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { TransferDestination } from '../domain/settlement';
import { bigintColumn, slotColumn } from './numeric';

/**
 * Every transfer instruction seen naming our references, once per (signature, instruction), whatever it was applied
 * to: one instruction's money is recorded for one request only. One that named several payments is kept under the
 * first of them (`ambiguous`).
 */
@Entity({ name: 'transfers' })
export class TransferEntity {
  @PrimaryColumn({ type: 'text' })
  signature!: string;

  /** `2` for the third top-level instruction, `2.0` for the first instruction it invoked; `ref:<reference>` before. */
  @PrimaryColumn({ type: 'text' })
  instruction!: string;

  @Column({ type: 'text' })
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
