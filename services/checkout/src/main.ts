// First: tracing must start before the modules it instruments are loaded.
import './telemetry';
import {
  createCheckout,
  createProduct,
  getCheckout,
  getCheckoutPage,
  getCheckoutSessionStatus,
  listCheckouts,
  listCheckoutSessions,
  paymentConfirmed,
  paymentCreated,
  paymentExpired,
  paymentFailed,
  paymentCancelled,
  startCheckoutSession,
} from '@gateway/contracts';
import { loadOrExit } from '@gateway/config';
import { createLogger } from '@gateway/observability';
import { openServiceRuntime, runUntilSignal, type ServiceRuntime } from '@gateway/service-runtime';
import { loadCheckoutConfig, type CheckoutConfig } from './config';
import { checkoutDatabase } from './persistence';
import { handleCreateProduct } from './handlers/product.create.v1';
import { handleCreateCheckout } from './handlers/checkout.create.v1';
import { handleGetCheckout } from './handlers/checkout.get.v1';
import { handleListCheckouts } from './handlers/checkout.list.v1';
import { handleGetCheckoutPage } from './handlers/checkout.page.get.v1';
import { handleStartCheckoutSession } from './handlers/checkout.session.start.v1';
import { handleGetCheckoutSessionStatus } from './handlers/checkout.session.status.v1';
import { handleListCheckoutSessions } from './handlers/checkout.sessions.list.v1';
import { handlePaymentEvent } from './handlers/payment-events.v1';

export async function startCheckoutService(config: CheckoutConfig): Promise<ServiceRuntime> {
  const runtime = await openServiceRuntime({ service: 'checkout', config, ...checkoutDatabase });
  const { broker, dataSource } = runtime;
  await broker.consumeCommands('checkout', {
    [createProduct.name]: handleCreateProduct(runtime.unitOfWork('product.create')),
    [createCheckout.name]: handleCreateCheckout(runtime.unitOfWork('checkout.create')),
    [getCheckout.name]: handleGetCheckout(dataSource),
    [listCheckouts.name]: handleListCheckouts(dataSource),
    [getCheckoutPage.name]: handleGetCheckoutPage(dataSource),
    [startCheckoutSession.name]: handleStartCheckoutSession({
      dataSource,
      broker,
      uow: runtime.unitOfWork('checkout.session.start'),
      paymentTimeoutMs: config.PAYMENT_RPC_TIMEOUT_MS,
    }),
    [getCheckoutSessionStatus.name]: handleGetCheckoutSessionStatus(dataSource),
    [listCheckoutSessions.name]: handleListCheckoutSessions(dataSource),
  });
  const paymentEvent = handlePaymentEvent(runtime.unitOfWork('checkout.payment-events'));
  const outcomes = [paymentConfirmed, paymentExpired, paymentFailed, paymentCancelled].map(
    ({ name }) => name,
  );
  // Bound to the outcomes only: every payment.created would cost the broker a copy and this service a delivery for
  // nothing. A queue declared with the older `payment.*.v1` binding keeps it, so payment.created is still handled.
  await broker.consumeEvents(
    'checkout',
    outcomes,
    Object.fromEntries([...outcomes, paymentCreated.name].map((name) => [name, paymentEvent])),
  );
  return runtime;
}

if (require.main === module) {
  const config = loadOrExit(loadCheckoutConfig);
  runUntilSignal(() => startCheckoutService(config), createLogger('checkout', config.LOG_LEVEL));
}
