import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A person who signs in to the dashboard. */
@Entity({ name: 'users' })
export class UserEntity {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  /** Lower case, unique. */
  @Column({ type: 'text' })
  email!: string;

  /** `scrypt$...` (domain/password.ts); never the password. */
  @Column({ type: 'text', name: 'password_hash' })
  passwordHash!: string;

  /** When the person proved they read mail at this address (a verification, reset or invitation link); null: not yet. */
  @Column({ type: 'timestamptz', name: 'email_verified_at', nullable: true })
  emailVerifiedAt!: Date | null;

  /** When the password was last reset: a session started before it is ended. */
  @Column({ type: 'timestamptz', name: 'password_changed_at', nullable: true })
  passwordChangedAt!: Date | null;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;
}
