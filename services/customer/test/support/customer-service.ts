import type { ServiceRuntime } from '@gateway/service-runtime';
import { serviceTestBed, startedForTheseTests, type ServiceTestBed } from '@gateway/testkit';
import { startCustomerService } from '../../src/main';

/**
 * The customer service started in-process on its own database and broker prefix, with a client broker, before the
 * enclosing describe's tests and closed after them.
 */
export function customerServiceForTheseTests(label: string): ServiceTestBed<ServiceRuntime> {
  return startedForTheseTests(() => serviceTestBed(label, (env) => startCustomerService(env.config)));
}
