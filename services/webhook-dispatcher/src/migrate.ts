import { loadOrExit } from '@gateway/config';
import { migrateServiceDatabase } from '@gateway/service-runtime';
import { loadWebhookDispatcherConfig } from './config';
import { webhookDispatcherDatabase } from './persistence';

void migrateServiceDatabase({
  service: 'webhook-dispatcher',
  config: loadOrExit(loadWebhookDispatcherConfig),
  ...webhookDispatcherDatabase,
});
