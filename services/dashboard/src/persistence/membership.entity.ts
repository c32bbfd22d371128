import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { Role } from '../domain/roles';

/** A person's role in a business. */
@Entity({ name: 'memberships' })
export class MembershipEntity {
  @PrimaryColumn({ type: 'text', name: 'user_id' })
  userId!: string;

  @PrimaryColumn({ type: 'text', name: 'business_id' })
  businessId!: string;

  @Column({ type: 'text' })
  role!: Role;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;
}
