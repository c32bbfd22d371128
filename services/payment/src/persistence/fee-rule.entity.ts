import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { PaymentMethod } from '@gateway/contracts';
import { bigintAsNumber } from '@gateway/persistence';

@Entity({ name: 'fee_rules' })
export class FeeRuleEntity {
  @PrimaryColumn({ type: 'text', name: 'business_id' })
  businessId!: string;

  @PrimaryColumn({ type: 'text' })
  method!: PaymentMethod;

  @Column({ type: 'integer', name: 'percent_bps' })
  percentBps!: number;

  @Column({ type: 'bigint', name: 'fixed_centavos', transformer: bigintAsNumber })
  fixedCentavos!: number;
}
