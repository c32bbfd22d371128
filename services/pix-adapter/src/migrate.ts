import { loadOrExit } from '@gateway/config';
import { migrateServiceDatabase } from '@gateway/service-runtime';
import { loadPixAdapterConfig } from './config';
import { pixAdapterDatabase } from './persistence';

void migrateServiceDatabase({
  service: 'pix-adapter',
  config: loadOrExit(loadPixAdapterConfig),
  ...pixAdapterDatabase,
});
