import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { WebhookEventName } from '@gateway/contracts';

/** A public event as its webhooks receive it (migration 1732400130000). */
@Entity({ name: 'events' })
export class EventEntity {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text', name: 'business_id' })
  businessId!: string;

  @Column({ type: 'text' })
  type!: WebhookEventName;

  /**
   * When the dispatcher stored it (the body keeps when it happened): the list's order, so an event stored late (a
   * backlog, a re-driven message) is listed above what a client already paged through, never behind it.
   */
  @Column({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;

  /** The payment the event is about (a payment's, or its refund's); null for a payout's (migration 1764402100000). */
  @Column({ type: 'text', name: 'payment_id', nullable: true })
  paymentId!: string | null;

  /** The serialized delivery body, byte for byte what deliveries send. */
  @Column({ type: 'text' })
  body!: string;
}
