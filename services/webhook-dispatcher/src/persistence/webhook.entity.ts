import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { WebhookEventName } from '@gateway/contracts';

export type WebhookStatus = 'active' | 'inactive';

@Entity({ name: 'webhooks' })
export class WebhookEntity {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text', name: 'business_id' })
  businessId!: string;

  @Column({ type: 'text' })
  url!: string;

  @Column({ type: 'text', array: true })
  events!: WebhookEventName[];

  @Column({ type: 'text' })
  status!: WebhookStatus;

  /** The signing secret, AES-256-GCM sealed (see @gateway/persistence secret-box): never stored in clear. */
  @Column({ type: 'text', name: 'secret_sealed' })
  secretSealed!: string;

  @Column({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;

  @Column({ type: 'timestamptz', name: 'updated_at' })
  updatedAt!: Date;

  @Column({ type: 'timestamptz', name: 'deleted_at', nullable: true })
  deletedAt!: Date | null;
}
