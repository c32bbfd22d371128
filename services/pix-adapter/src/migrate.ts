import { loadOrExit } from '@gateway/config';
import { migrateServiceDatabase } from '@gateway/messaging';
import { loadPixAdapterConfig } from './config';
import { pixAdapterDatabase } from './persistence';

void migrateServiceDatabase({
  service: 'pix-adapter',
  config: loadOrExit(loadPixAdapterConfig),
  ...pixAdapterDatabase,
});
