import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { SessionStatus } from '../domain/session-status';

@Entity({ name: 'sessions' })
export class SessionEntity {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text', name: 'checkout_id' })
  checkoutId!: string;

  @Column({ type: 'text', name: 'payment_id' })
  paymentId!: string;

  /** A recurring product's session: the subscription it started (`paymentId` is its first cycle's payment). */
  @Column({ type: 'text', name: 'subscription_id', nullable: true })
  subscriptionId!: string | null;

  @Column({ type: 'text' })
  status!: SessionStatus;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;

  @UpdateDateColumn({ type: 'timestamptz', name: 'updated_at' })
  updatedAt!: Date;
}
