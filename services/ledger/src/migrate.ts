import { loadOrExit } from '@gateway/config';
import { migrateServiceDatabase } from '@gateway/service-runtime';
import { loadLedgerConfig } from './config';
import { ledgerDatabase } from './persistence';

void migrateServiceDatabase({
  service: 'ledger',
  config: loadOrExit(loadLedgerConfig),
  ...ledgerDatabase,
});
