import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { AccountTokenPurpose } from '../domain/one-time-token';

/** A one-time token mailed to a person (e-mail verification, password reset): only its SHA-256 is kept. */
@Entity({ name: 'account_tokens' })
export class AccountTokenEntity {
  @PrimaryColumn({ type: 'text', name: 'token_hash' })
  tokenHash!: string;

  @Column({ type: 'text' })
  purpose!: AccountTokenPurpose;

  @Column({ type: 'text', name: 'user_id' })
  userId!: string;

  @Column({ type: 'timestamptz', name: 'expires_at' })
  expiresAt!: Date;

  @Column({ type: 'timestamptz', name: 'used_at', nullable: true })
  usedAt!: Date | null;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;
}
