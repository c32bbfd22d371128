import type { ApiKeyScope } from '@gateway/contracts';
import type { ApiKeyPurpose } from '../domain/api-key';
import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/**
 * An issued API key: only its SHA-256 is kept; the prefix finds the row and names the key to operators. It works until
 * revoked or, once rolled, until it expires.
 */
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

  /** What the key may do; null: everything (every key issued without scopes). */
  @Column({ type: 'text', array: true, nullable: true })
  scopes!: ApiKeyScope[] | null;

  /** When a rolled key stops working; null: until revoked. */
  @Column({ type: 'timestamptz', name: 'expires_at', nullable: true })
  expiresAt!: Date | null;

  /** Whom the key is for (domain/api-key.ts): `dashboard` only when the operator API marked it so. */
  @Column({ type: 'text', default: 'merchant' })
  purpose!: ApiKeyPurpose;

  /** The key this one was rolled to (a key is rolled once). */
  @Column({ type: 'text', name: 'rolled_to', nullable: true })
  rolledTo!: string | null;
}
