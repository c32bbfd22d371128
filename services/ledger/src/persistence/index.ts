import { BalanceEntity } from './balance.entity';
import { BalanceTransactionEntity } from './balance-transaction.entity';
import { EntryEntity } from './entry.entity';
import { JournalEntity } from './journal.entity';
import { SettlementEntity } from './settlement.entity';
import { PayoutEntity } from './payout.entity';
import { PayoutAccountEntity } from './payout-account.entity';
import { Books1764400000000 } from './migrations/1764400000000-books';
import { SettlementRemainders1764400100000 } from './migrations/1764400100000-settlement-remainders';
import { RefundReservations1764400300000 } from './migrations/1764400300000-refund-reservations';
import { Payouts1764400200000 } from './migrations/1764400200000-payouts';
import { SuspenseAndDisputes1764400400000 } from './migrations/1764400400000-suspense-and-disputes';
import { Reconciliation1764400500000 } from './migrations/1764400500000-reconciliation';
import { Adjustments1764401200000 } from './migrations/1764401200000-adjustments';
import { BalanceTransactionsDatedWhenPosted1764401300000 } from './migrations/1764401300000-balance-transactions-dated-when-posted';
import { BalanceTransactionsKeptAsPosted1764401300100 } from './migrations/1764401300100-balance-transactions-kept-as-posted';
import { BalancesTiedToEntries1764401300200 } from './migrations/1764401300200-balances-tied-to-entries';
import { BalancesAndSettlementsKept1764401500000 } from './migrations/1764401500000-balances-and-settlements-kept';
import { RuntimeRole1764402000000 } from './migrations/1764402000000-runtime-role';
import { LedgerOutboxInsertedAt1764403200300 } from './migrations/1764403200300-outbox-inserted-at';

export {
  BalanceEntity,
  BalanceTransactionEntity,
  EntryEntity,
  JournalEntity,
  PayoutAccountEntity,
  PayoutEntity,
  SettlementEntity,
};
export * from './ledger-store';
export * from './balance-transaction-store';
export * from './payout-store';
export * from './reservation-store';
export * from './suspense-store';
export * from './reconciliation-store';
export * from './adjustment-store';
export * from './runtime-role';

export const ledgerDatabase = {
  schema: 'ledger',
  entities: [
    JournalEntity,
    EntryEntity,
    BalanceEntity,
    BalanceTransactionEntity,
    SettlementEntity,
    PayoutEntity,
    PayoutAccountEntity,
  ],
  migrations: [
    Books1764400000000,
    SettlementRemainders1764400100000,
    Payouts1764400200000,
    RefundReservations1764400300000,
    SuspenseAndDisputes1764400400000,
    Reconciliation1764400500000,
    Adjustments1764401200000,
    BalanceTransactionsDatedWhenPosted1764401300000,
    BalanceTransactionsKeptAsPosted1764401300100,
    BalancesTiedToEntries1764401300200,
    BalancesAndSettlementsKept1764401500000,
    RuntimeRole1764402000000,
    LedgerOutboxInsertedAt1764403200300,
  ],
};
