import { loadOrExit } from '@gateway/config';
import { migrateServiceDatabase } from '@gateway/service-runtime';
import { loadPaymentConfig } from './config';
import { paymentDatabase } from './persistence';

void migrateServiceDatabase({
  service: 'payment',
  config: loadOrExit(loadPaymentConfig),
  ...paymentDatabase,
});
