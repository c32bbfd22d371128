import { loadOrExit } from '@gateway/config';
import { migrateServiceDatabase } from '@gateway/service-runtime';
import { loadCustomerConfig } from './config';
import { customerDatabase } from './persistence';

void migrateServiceDatabase({
  service: 'customer',
  config: loadOrExit(loadCustomerConfig),
  ...customerDatabase,
});
