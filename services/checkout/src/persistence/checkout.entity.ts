import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

export type CheckoutStatus = 'active' | 'inactive';

@Entity({ name: 'checkouts' })
export class CheckoutEntity {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text', name: 'business_id' })
  businessId!: string;

  @Column({ type: 'text', name: 'product_id' })
  productId!: string;

  @Column({ type: 'text' })
  slug!: string;

  @Column({ type: 'text', nullable: true })
  title!: string | null;

  @Column({ type: 'text', name: 'return_url' })
  returnUrl!: string;

  @Column({ type: 'text', name: 'cancel_url' })
  cancelUrl!: string;

  @Column({ type: 'text', nullable: true })
  metadata!: string | null;

  @Column({ type: 'text' })
  status!: CheckoutStatus;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;
}
