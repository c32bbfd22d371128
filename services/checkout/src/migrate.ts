import { loadOrExit } from '@gateway/config';
import { migrateServiceDatabase } from '@gateway/service-runtime';
import { loadCheckoutConfig } from './config';
import { checkoutDatabase } from './persistence';

void migrateServiceDatabase({
  service: 'checkout',
  config: loadOrExit(loadCheckoutConfig),
  ...checkoutDatabase,
});
