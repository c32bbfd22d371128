// First: tracing must start before the modules it instruments are loaded.
import './telemetry';
import { createCustomer, getCustomer, listCustomers } from '@gateway/contracts';
import { loadOrExit } from '@gateway/config';
import { createLogger } from '@gateway/observability';
import { openServiceRuntime, runUntilSignal, type ServiceRuntime } from '@gateway/service-runtime';
import { loadCustomerConfig, type CustomerConfig } from './config';
import { customerDatabase } from './persistence';
import { handleCreateCustomer } from './handlers/customer.create.v1';
import { handleGetCustomer } from './handlers/customer.get.v1';
import { handleListCustomers } from './handlers/customer.list.v1';

export async function startCustomerService(config: CustomerConfig): Promise<ServiceRuntime> {
  const runtime = await openServiceRuntime({ service: 'customer', config, ...customerDatabase });
  await runtime.broker.consumeCommands('customer', {
    [createCustomer.name]: handleCreateCustomer(runtime.unitOfWork('customer.create')),
    [getCustomer.name]: handleGetCustomer(runtime.dataSource),
    [listCustomers.name]: handleListCustomers(runtime.dataSource),
  });
  return runtime;
}

if (require.main === module) {
  const config = loadOrExit(loadCustomerConfig);
  runUntilSignal(() => startCustomerService(config), createLogger('customer', config.LOG_LEVEL));
}
