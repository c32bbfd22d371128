import { BalanceEntity } from './balance.entity';
import { BalanceTransactionEntity } from './balance-transaction.entity';
import { EntryEntity } from './entry.entity';
import { JournalEntity } from './journal.entity';
import { SettlementEntity } from './settlement.entity';
import { Books1764400000000 } from './migrations/1764400000000-books';
import { SettlementRemainders1764400100000 } from './migrations/1764400100000-settlement-remainders';
import { RefundReservations1764400300000 } from './migrations/1764400300000-refund-reservations';

export { BalanceEntity, BalanceTransactionEntity, EntryEntity, JournalEntity, SettlementEntity };
export * from './ledger-store';
export * from './balance-transaction-store';
export * from './reservation-store';

export const ledgerDatabase = {
  schema: 'ledger',
  entities: [JournalEntity, EntryEntity, BalanceEntity, BalanceTransactionEntity, SettlementEntity],
  migrations: [Books1764400000000, SettlementRemainders1764400100000, RefundReservations1764400300000],
};
