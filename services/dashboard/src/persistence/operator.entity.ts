import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/**
 * A person who operates the platform (not a member of any business): signs in to the operator console (/operador)
 * with their own password and second factor.
 */
@Entity({ name: 'operators' })
export class OperatorEntity {
  @PrimaryColumn({ type: 'text', name: 'user_id' })
  userId!: string;

  /** The operator who invited them; null for the first, invited by the `operator:invite` command. */
  @Column({ type: 'text', name: 'invited_by', nullable: true })
  invitedBy!: string | null;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;
}
