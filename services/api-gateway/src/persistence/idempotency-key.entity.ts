import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** The first answer to a POST sent with an `Idempotency-Key`, replayed byte for byte for 24 h. */
@Entity({ name: 'idempotency_keys' })
export class IdempotencyKeyEntity {
  @PrimaryColumn({ type: 'text', name: 'business_id' })
  businessId!: string;

  @PrimaryColumn({ type: 'text' })
  key!: string;

  @Column({ type: 'bytea', name: 'request_hash' })
  requestHash!: Buffer;

  @Column({ type: 'text' })
  state!: 'in_progress' | 'done' | 'retryable';

  @Column({ type: 'integer', name: 'response_status', nullable: true })
  responseStatus!: number | null;

  @Column({ type: 'text', name: 'response_body', nullable: true })
  responseBody!: string | null;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;

  @Column({ type: 'timestamptz', name: 'expires_at' })
  expiresAt!: Date;
}
