import { ChargeEntity } from './charge.entity';
import { Charges1732300003000 } from './migrations/1732300003000-charges';
import { FinalChargesFrozen1732400007000 } from './migrations/1732400007000-final-charges-frozen';
import { ChargeCheckLeases1732400031000 } from './migrations/1732400031000-charge-check-leases';

export { ChargeEntity };
export type { ChargeStatus } from './charge.entity';

export const pixAdapterDatabase = {
  schema: 'pix_adapter',
  entities: [ChargeEntity],
  migrations: [Charges1732300003000, FinalChargesFrozen1732400007000, ChargeCheckLeases1732400031000],
};
