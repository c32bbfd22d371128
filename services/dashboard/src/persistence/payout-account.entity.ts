import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { PixKeyType } from '../domain/payout-forms';

/**
 * The payout account as last set from the dashboard: its type and the key's last four characters (the gateway holds
 * the account; its operator API sets it but answers no read of it), who set it and when.
 */
@Entity({ name: 'payout_accounts' })
export class PayoutAccountEntity {
  @PrimaryColumn({ type: 'text', name: 'business_id' })
  businessId!: string;

  @Column({ type: 'text', name: 'pix_key_type' })
  pixKeyType!: PixKeyType;

  @Column({ type: 'text', name: 'pix_key_hint' })
  pixKeyHint!: string;

  @Column({ type: 'text', name: 'updated_by' })
  updatedBy!: string;

  @Column({ type: 'timestamptz', name: 'updated_at' })
  updatedAt!: Date;
}
