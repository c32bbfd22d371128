import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** An issued API key: only its SHA-256 is kept; the prefix finds the row and names the key to operators. */
@Entity({ name: 'api_keys' })
export class ApiKeyEntity {
  @PrimaryColumn({ type: 'text', name: 'key_prefix' })
  keyPrefix!: string;

  @Column({ type: 'bytea' })
  hash!: Buffer;

  @Column({ type: 'text', name: 'business_id' })
  businessId!: string;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;

  @Column({ type: 'timestamptz', name: 'revoked_at', nullable: true })
  revokedAt!: Date | null;
}
