import { apiGatewayDatabase } from '@gateway/api-gateway/src/persistence';
import { checkoutDatabase } from '@gateway/checkout/src/persistence';
import type { ServiceName } from '@gateway/contracts';
import { customerDatabase } from '@gateway/customer/src/persistence';
import { ledgerDatabase } from '@gateway/ledger/src/persistence';
import type { ServiceRuntimeOptions } from '@gateway/service-runtime';
import { paymentDatabase } from '@gateway/payment/src/persistence';
import { pixAdapterDatabase } from '@gateway/pix-adapter/src/persistence';
import { solanaWatcherDatabase } from '@gateway/solana-watcher/src/persistence';
import { webhookDispatcherDatabase } from '@gateway/webhook-dispatcher/src/persistence';

export type ServiceDatabase = Pick<ServiceRuntimeOptions, 'schema' | 'entities' | 'migrations'>;

/** Each service's schema, entities and own migrations; keyed by the one list of services, so none is left out. */
export const serviceDatabases: Record<ServiceName, ServiceDatabase> = {
  'api-gateway': apiGatewayDatabase,
  payment: paymentDatabase,
  'pix-adapter': pixAdapterDatabase,
  'solana-watcher': solanaWatcherDatabase,
  checkout: checkoutDatabase,
  customer: customerDatabase,
  'webhook-dispatcher': webhookDispatcherDatabase,
  ledger: ledgerDatabase,
};
