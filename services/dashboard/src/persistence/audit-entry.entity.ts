import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { AuditAction } from '../domain/audit';

/** Who did what, when and from where. Append-only: the database refuses to update, delete or truncate them. */
@Entity({ name: 'audit_entries' })
export class AuditEntryEntity {
  /** bigserial: read as a string. Newest first is by id. */
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  /** The business it happened in; null when none is known (a failed sign-in with an unknown e-mail). */
  @Column({ type: 'text', name: 'business_id', nullable: true })
  businessId!: string | null;

  @Column({ type: 'text', name: 'actor_user_id', nullable: true })
  actorUserId!: string | null;

  /** The e-mail the actor had or typed (a failed sign-in records the address tried). */
  @Column({ type: 'text', name: 'actor_email', nullable: true })
  actorEmail!: string | null;

  @Column({ type: 'text' })
  action!: AuditAction;

  /** What it was done to: an e-mail, a key prefix, a payment id. */
  @Column({ type: 'text', nullable: true })
  target!: string | null;

  @Column({ type: 'jsonb' })
  details!: Record<string, string>;

  @Column({ type: 'text', name: 'client_address', nullable: true })
  clientAddress!: string | null;

  @Column({ type: 'text', name: 'user_agent', nullable: true })
  userAgent!: string | null;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;
}
