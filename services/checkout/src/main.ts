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
  listProducts,
  paymentConfirmed,
  paymentCreated,
  paymentExpired,
  paymentFailed,
  paymentCancelled,
  startCheckoutSession,
  updateCheckout,
  updateProduct,
} from '@gateway/contracts';
import { loadOrExit } from '@gateway/config';
import { createLogger } from '@gateway/observability';
import { openServiceRuntime, runUntilSignal, type ServiceRuntime } from '@gateway/service-runtime';
import { loadCheckoutConfig, type CheckoutConfig } from './config';
import { checkoutDatabase } from './persistence';
import { createProduct as storeProduct } from './application/create-product';
import { startCheckoutSession as startSession } from './application/start-checkout-session';
import { handleCreateCheckout } from './handlers/checkout.create.v1';
import { handleGetCheckout } from './handlers/checkout.get.v1';
import { handleListCheckouts } from './handlers/checkout.list.v1';
import { handleUpdateCheckout } from './handlers/checkout.update.v1';
import { handleListProducts } from './handlers/product.list.v1';
import { handleUpdateProduct } from './handlers/product.update.v1';
import { handleGetCheckoutPage } from './handlers/checkout.page.get.v1';
import { handleGetCheckoutSessionStatus } from './handlers/checkout.session.status.v1';
import { handleListCheckoutSessions } from './handlers/checkout.sessions.list.v1';
import { handlePaymentEvent } from './handlers/payment-events.v1';

export async function startCheckoutService(config: CheckoutConfig): Promise<ServiceRuntime> {
  const runtime = await openServiceRuntime({ service: 'checkout', config, ...checkoutDatabase });
  const { broker, dataSource } = runtime;
  const sessionDeps = {
    dataSource,
    broker,
    uow: runtime.unitOfWork('checkout.session.start'),
    paymentTimeoutMs: config.PAYMENT_RPC_TIMEOUT_MS,
  };
  const paymentEvent = handlePaymentEvent(runtime.unitOfWork('checkout.payment-events'));
  await broker
    .handlers('checkout')
    .handle(createProduct, (command, context) =>
      storeProduct(runtime.unitOfWork('product.create'), command, context),
    )
    .handle(listProducts, handleListProducts(dataSource))
    .handle(updateProduct, handleUpdateProduct(runtime.unitOfWork('product.update')))
    .handle(createCheckout, handleCreateCheckout(runtime.unitOfWork('checkout.create')))
    .handle(updateCheckout, handleUpdateCheckout(runtime.unitOfWork('checkout.update')))
    .handle(getCheckout, handleGetCheckout(dataSource))
    .handle(listCheckouts, handleListCheckouts(dataSource))
    .handle(getCheckoutPage, handleGetCheckoutPage(dataSource))
    .handle(startCheckoutSession, (command, context) => startSession(sessionDeps, command, context))
    .handle(getCheckoutSessionStatus, handleGetCheckoutSessionStatus(dataSource))
    .handle(listCheckoutSessions, handleListCheckoutSessions(dataSource))
    .handle(paymentConfirmed, paymentEvent)
    .handle(paymentExpired, paymentEvent)
    .handle(paymentFailed, paymentEvent)
    .handle(paymentCancelled, paymentEvent)
    // Not bound: every payment.created would cost the broker a copy and this service a delivery for nothing. A queue
    // declared with the older `payment.*.v1` binding keeps it, so payment.created is still handled (and ignored).
    .handle(paymentCreated, paymentEvent, { bind: false })
    .consume();
  return runtime;
}

if (require.main === module) {
  const config = loadOrExit(loadCheckoutConfig);
  runUntilSignal(() => startCheckoutService(config), createLogger('checkout', config.LOG_LEVEL));
}
