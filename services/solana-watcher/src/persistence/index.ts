import { CryptoRefundEntity } from './crypto-refund.entity';
import { PaymentRequestEntity } from './payment-request.entity';
import { ScanCursorEntity } from './scan-cursor.entity';
import { TransferEntity } from './transfer.entity';
import { SolanaWatcher1732300005000 } from './migrations/1732300005000-solana-watcher';
import { FinalRequestsFrozen1732400008000 } from './migrations/1732400008000-final-requests-frozen';
import { CancelledRequests1732400120000 } from './migrations/1732400120000-cancelled-requests';
import { CryptoRefunds1732400121000 } from './migrations/1732400121000-crypto-refunds';
import { RequestTraceContext1732400172000 } from './migrations/1732400172000-request-trace-context';
import { RefundsWithinReceived1732400274000 } from './migrations/1732400274000-refunds-within-received';

export { CryptoRefundEntity, PaymentRequestEntity, ScanCursorEntity, TransferEntity };
export * from './crypto-refund-store';
export * from './payment-request-store';
export * from './scan-cursor-store';
export * from './transfer-store';

export const solanaWatcherDatabase = {
  schema: 'solana_watcher',
  entities: [PaymentRequestEntity, TransferEntity, ScanCursorEntity, CryptoRefundEntity],
  migrations: [
    SolanaWatcher1732300005000,
    FinalRequestsFrozen1732400008000,
    CancelledRequests1732400120000,
    CryptoRefunds1732400121000,
    RequestTraceContext1732400172000,
    RefundsWithinReceived1732400274000,
  ],
};
