import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { WebhookDelivery } from '@gateway/contracts';

export type DeliveryStatus = WebhookDelivery['status'];

/** One event for one webhook. Rows are claimed by the worker with a lease, so several replicas share them. */
@Entity({ name: 'deliveries' })
export class DeliveryEntity {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  /** Insertion order: the list's newest-first cursor. */
  @Column({ type: 'bigint', insert: false, update: false })
  seq!: string;

  @Column({ type: 'text', name: 'webhook_id' })
  webhookId!: string;

  @Column({ type: 'text', name: 'event_id' })
  eventId!: string;

  @Column({ type: 'text', name: 'event_type' })
  eventType!: string;

  /** Serialized once at creation; every attempt sends (and signs) exactly these bytes as UTF-8. */
  @Column({ type: 'text' })
  body!: string;

  @Column({ type: 'text' })
  status!: DeliveryStatus;

  @Column({ type: 'integer', name: 'attempt_count' })
  attemptCount!: number;

  @Column({ type: 'timestamptz', name: 'next_attempt_at', nullable: true })
  nextAttemptAt!: Date | null;

  @Column({ type: 'text', name: 'lease_owner', nullable: true })
  leaseOwner!: string | null;

  @Column({ type: 'timestamptz', name: 'lease_expires_at', nullable: true })
  leaseExpiresAt!: Date | null;

  @Column({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;

  @Column({ type: 'timestamptz', name: 'updated_at' })
  updatedAt!: Date;
}
