import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** The newest signature already processed per watched token account: scans resume after it. */
@Entity({ name: 'scan_cursors' })
export class ScanCursorEntity {
  @PrimaryColumn({ type: 'text' })
  address!: string;

  @Column({ type: 'text', name: 'last_signature' })
  lastSignature!: string;

  @UpdateDateColumn({ type: 'timestamptz', name: 'updated_at' })
  updatedAt!: Date;
}
