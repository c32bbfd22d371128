import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A transaction listed for a watched address that the watcher could not read (a version the node would not serve
 * it in, or an answer it cannot parse): kept until it is read, so its money is never skipped. While unread it is
 * read again at `next_attempt_at`; once read, its transfers are recorded like any other and `read_at` is set.
 */
@Entity({ name: 'unreadable_transactions' })
export class UnreadableTransactionEntity {
  @PrimaryColumn({ type: 'text' })
  signature!: string;

  /** The watched token account (or reference) whose listing showed it. */
  @Column({ type: 'text' })
  address!: string;

  @Column({ type: 'timestamptz', name: 'block_time', nullable: true })
  blockTime!: Date | null;

  /** Why the last attempt could not read it. */
  @Column({ type: 'text' })
  error!: string;

  /** Our references it names, as their listings showed when it was first seen. */
  @Column({ type: 'text', array: true, name: 'named_references' })
  namedReferences!: string[];

  @Column({ type: 'integer' })
  attempts!: number;

  @Column({ type: 'timestamptz', name: 'first_seen_at' })
  firstSeenAt!: Date;

  @Column({ type: 'timestamptz', name: 'next_attempt_at' })
  nextAttemptAt!: Date;

  @Column({ type: 'timestamptz', name: 'read_at', nullable: true })
  readAt!: Date | null;
}
