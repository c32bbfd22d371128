import { Column, Entity, PrimaryColumn } from 'typeorm';

/** How far the reconciliation has read one owner's event log, and which replica reads it (migration 1764403100000). */
@Entity({ name: 'event_log_cursors' })
export class EventLogCursorEntity {
  /** The log's command (`payment.event-log.read.v1`). */
  @PrimaryColumn({ type: 'text' })
  log!: string;

  /** The last position read: every settled entry up to it has been recorded. */
  @Column({ type: 'bigint' })
  position!: string;

  @Column({ type: 'text', name: 'lease_owner', nullable: true })
  leaseOwner!: string | null;

  @Column({ type: 'timestamptz', name: 'lease_expires_at', nullable: true })
  leaseExpiresAt!: Date | null;

  /** When the position last reached the end of what the owner answered as settled (migration 1764403200100). */
  @Column({ type: 'timestamptz', name: 'caught_up_at' })
  caughtUpAt!: Date;

  @Column({ type: 'timestamptz', name: 'updated_at' })
  updatedAt!: Date;
}
