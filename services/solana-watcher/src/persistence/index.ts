import { PaymentRequestEntity } from './payment-request.entity';
import { ScanCursorEntity } from './scan-cursor.entity';
import { TransferEntity } from './transfer.entity';
import { SolanaWatcher1732300005000 } from './migrations/1732300005000-solana-watcher';
import { FinalRequestsFrozen1732400008000 } from './migrations/1732400008000-final-requests-frozen';

export { PaymentRequestEntity, ScanCursorEntity, TransferEntity };

export const solanaWatcherDatabase = {
  schema: 'solana_watcher',
  entities: [PaymentRequestEntity, TransferEntity, ScanCursorEntity],
  migrations: [SolanaWatcher1732300005000, FinalRequestsFrozen1732400008000],
};
