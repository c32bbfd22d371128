import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { PixKeyType } from '@gateway/contracts';

/** Where a business's payouts go: its own PIX key, set by the operator. */
@Entity({ name: 'payout_accounts' })
export class PayoutAccountEntity {
  @PrimaryColumn({ type: 'text', name: 'business_id' })
  businessId!: string;

  @Column({ type: 'text', name: 'pix_key' })
  pixKey!: string;

  @Column({ type: 'text', name: 'pix_key_type' })
  pixKeyType!: PixKeyType;

  @Column({ type: 'text', name: 'holder_document' })
  holderDocument!: string;

  @Column({ type: 'timestamptz', name: 'updated_at' })
  updatedAt!: Date;
}
