import type { ProductStatus, SubscriptionInterval } from '@gateway/contracts';
import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'products' })
export class ProductEntity {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text', name: 'business_id' })
  businessId!: string;

  /** The merchant's display name for the hosted page, when the operator gave it with the product. */
  @Column({ type: 'text', name: 'business_name', nullable: true })
  businessName!: string | null;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  @Column({ type: 'bigint', name: 'price_centavos', transformer: { to: (v: number) => v, from: Number } })
  priceCentavos!: number;

  /** `inactive`: sold by no new checkout. */
  @Column({ type: 'text', default: 'active' })
  status!: ProductStatus;

  /** Recurring: its checkouts start a subscription billed every `interval`; null: a one-off sale. */
  @Column({ type: 'text', nullable: true })
  interval!: SubscriptionInterval | null;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;
}
