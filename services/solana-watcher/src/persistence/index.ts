import { CryptoRefundEntity } from './crypto-refund.entity';
import { PaymentRequestEntity } from './payment-request.entity';
import { ScanCursorEntity } from './scan-cursor.entity';
import { TransferEntity } from './transfer.entity';
import { UnreadableTransactionEntity } from './unreadable-transaction.entity';
import { SolanaWatcher1732300005000 } from './migrations/1732300005000-solana-watcher';
import { FinalRequestsFrozen1732400008000 } from './migrations/1732400008000-final-requests-frozen';
import { CancelledRequests1732400120000 } from './migrations/1732400120000-cancelled-requests';
import { CryptoRefunds1732400121000 } from './migrations/1732400121000-crypto-refunds';
import { RequestTraceContext1732400172000 } from './migrations/1732400172000-request-trace-context';
import { TransfersOncePerInstruction1732400270000 } from './migrations/1732400270000-transfers-once-per-instruction';
import { UnreadableTransactions1732400271000 } from './migrations/1732400271000-unreadable-transactions';
import { RefundsWithinReceived1732400274000 } from './migrations/1732400274000-refunds-within-received';
import { FundsReturns1764401100002 } from './migrations/1764401100002-funds-returns';
import { RefundAttempts1764402700000 } from './migrations/1764402700000-refund-attempts';
import { SandboxWalletPayments1764403201060 } from './migrations/1764403201060-sandbox-wallet-payments';

export {
  CryptoRefundEntity,
  PaymentRequestEntity,
  ScanCursorEntity,
  TransferEntity,
  UnreadableTransactionEntity,
};
export * from './crypto-refund-store';
export * from './payment-request-store';
export * from './sandbox-wallet-payment-store';
export * from './scan-cursor-store';
export * from './transfer-store';
export * from './unreadable-transaction-store';

export const solanaWatcherDatabase = {
  schema: 'solana_watcher',
  entities: [
    PaymentRequestEntity,
    TransferEntity,
    ScanCursorEntity,
    CryptoRefundEntity,
    UnreadableTransactionEntity,
  ],
  migrations: [
    SolanaWatcher1732300005000,
    FinalRequestsFrozen1732400008000,
    CancelledRequests1732400120000,
    CryptoRefunds1732400121000,
    RequestTraceContext1732400172000,
    TransfersOncePerInstruction1732400270000,
    UnreadableTransactions1732400271000,
    RefundsWithinReceived1732400274000,
    FundsReturns1764401100002,
    RefundAttempts1764402700000,
    SandboxWalletPayments1764403201060,
  ],
};
