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
  await runtime.broker
    .handlers('customer')
    .handle(createCustomer, handleCreateCustomer(runtime.unitOfWork('customer.create')))
    .handle(getCustomer, handleGetCustomer(runtime.dataSource))
    .handle(listCustomers, handleListCustomers(runtime.dataSource))
    .consume();
  return runtime;
}

if (require.main === module) {
  const config = loadOrExit(loadCustomerConfig);
  runUntilSignal(() => startCustomerService(config), createLogger('customer', config.LOG_LEVEL));
}
