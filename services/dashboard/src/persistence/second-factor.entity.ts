import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/**
 * A person's authenticator (TOTP): its secret sealed (AES-256-GCM, DASHBOARD_SEAL_KEY); confirmed once a first code
 * matched; the last step a code was accepted for, so no code is accepted twice.
 */
@Entity({ name: 'second_factors' })
export class SecondFactorEntity {
  @PrimaryColumn({ type: 'text', name: 'user_id' })
  userId!: string;

  @Column({ type: 'text', name: 'sealed_secret' })
  sealedSecret!: string;

  /** Null while the enrolment waits for its first code: the factor is not required nor offered until then. */
  @Column({ type: 'timestamptz', name: 'confirmed_at', nullable: true })
  confirmedAt!: Date | null;

  @Column({ type: 'bigint', name: 'last_used_step', nullable: true })
  lastUsedStep!: string | null;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;
}

/** A one-time recovery code, by its SHA-256 only; used once. */
@Entity({ name: 'recovery_codes' })
export class RecoveryCodeEntity {
  @PrimaryColumn({ type: 'text', name: 'user_id' })
  userId!: string;

  @PrimaryColumn({ type: 'text', name: 'code_hash' })
  codeHash!: string;

  @Column({ type: 'timestamptz', name: 'used_at', nullable: true })
  usedAt!: Date | null;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;
}
