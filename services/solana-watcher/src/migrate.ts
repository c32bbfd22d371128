import { loadOrExit } from '@gateway/config';
import { migrateServiceDatabase } from '@gateway/service-runtime';
import { loadSolanaWatcherConfig } from './config';
import { solanaWatcherDatabase } from './persistence';

void migrateServiceDatabase({
  service: 'solana-watcher',
  config: loadOrExit(loadSolanaWatcherConfig),
  ...solanaWatcherDatabase,
});
