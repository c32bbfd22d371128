import { loadOrExit } from '@gateway/config';
import { migrateServiceDatabase } from '@gateway/messaging';
import { loadCustomerConfig } from './config';
import { customerDatabase } from './persistence';

void migrateServiceDatabase({
  service: 'customer',
  config: loadOrExit(loadCustomerConfig),
  ...customerDatabase,
});
