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

  /** The secret a rotation replaced, still signing until `previousSecretUntil`. */
  @Column({ type: 'text', name: 'previous_secret_sealed', nullable: true })
  previousSecretSealed!: string | null;

  @Column({ type: 'timestamptz', name: 'previous_secret_until', nullable: true })
  previousSecretUntil!: Date | null;

  @Column({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;

  @Column({ type: 'timestamptz', name: 'updated_at' })
  updatedAt!: Date;

  @Column({ type: 'timestamptz', name: 'deleted_at', nullable: true })
  deletedAt!: Date | null;
}
