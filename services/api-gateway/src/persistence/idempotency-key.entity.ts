import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** The first answer to a POST sent with an `Idempotency-Key`, replayed byte for byte for 24 h (stored sealed). */
@Entity({ name: 'idempotency_keys' })
export class IdempotencyKeyEntity {
  @PrimaryColumn({ type: 'text', name: 'business_id' })
  businessId!: string;

  @PrimaryColumn({ type: 'text' })
  key!: string;

  /** This claim of the key: kept while it is retried, new when the key is claimed again after expiry. */
  @Column({ type: 'uuid', name: 'claim_id' })
  claimId!: string;

  @Column({ type: 'bytea', name: 'request_hash' })
  requestHash!: Buffer;

  @Column({ type: 'text' })
  state!: 'in_progress' | 'done' | 'retryable';

  @Column({ type: 'integer', name: 'response_status', nullable: true })
  responseStatus!: number | null;

  /** The answer's body, AES-256-GCM sealed (it may carry a secret, e.g. a new webhook's). */
  @Column({ type: 'text', name: 'response_sealed', nullable: true })
  responseSealed!: string | null;

  /** Until when the request holding an in-progress claim is known alive (it renews this); null once answered. */
  @Column({ type: 'timestamptz', name: 'lease_expires_at', nullable: true })
  leaseExpiresAt!: Date | null;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;

  @Column({ type: 'timestamptz', name: 'expires_at' })
  expiresAt!: Date;
}
