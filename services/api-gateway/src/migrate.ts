import { loadOrExit } from '@gateway/config';
import { migrateServiceDatabase } from '@gateway/service-runtime';
import { loadApiGatewayConfig } from './config';
import { apiGatewayDatabase } from './persistence';

void migrateServiceDatabase({
  service: 'api-gateway',
  config: loadOrExit(loadApiGatewayConfig),
  ...apiGatewayDatabase,
});
