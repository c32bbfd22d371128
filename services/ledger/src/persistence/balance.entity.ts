import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintAsNumber } from '@gateway/persistence';

/** A business's four balances, changed by each journal in its own transaction. */
@Entity({ name: 'balances' })
export class BalanceEntity {
  @PrimaryColumn({ type: 'text', name: 'business_id' })
  businessId!: string;

  @Column({ type: 'bigint', name: 'available_centavos', transformer: bigintAsNumber })
  availableCentavos!: number;

  @Column({ type: 'bigint', name: 'pending_centavos', transformer: bigintAsNumber })
  pendingCentavos!: number;

  @Column({ type: 'bigint', name: 'reserved_centavos', transformer: bigintAsNumber })
  reservedCentavos!: number;

  @Column({ type: 'bigint', name: 'blocked_centavos', transformer: bigintAsNumber })
  blockedCentavos!: number;

  @Column({ type: 'timestamptz', name: 'updated_at' })
  updatedAt!: Date;
}
