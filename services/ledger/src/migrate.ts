import { loadOrExit } from '@gateway/config';
import { migrateServiceDatabase } from '@gateway/service-runtime';
import { loadLedgerMigrationConfig } from './config';
import { ledgerConnections, ledgerDatabase } from './persistence';

const config = loadOrExit(loadLedgerMigrationConfig);
// In the sandbox, the role the service serves as is created first: the migrations grant it what it may do.
void ledgerConnections(config).then(({ migrationUrl }) =>
  migrateServiceDatabase({ service: 'ledger', config, migrationUrl, ...ledgerDatabase }),
);
