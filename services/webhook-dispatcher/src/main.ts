// First: tracing must start before the modules it instruments are loaded.
import './telemetry';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  rotateWebhookSecret,
  listWebhookDeliveries,
  publicPaymentEvents,
  publicPayoutEvents,
  publicDisputeEvents,
  publicSubscriptionEvents,
  publicRefundEvents,
  getEvent,
  listEvents,
  retryWebhookDelivery,
  sendTestWebhook,
} from '@gateway/contracts';
import { loadOrExit } from '@gateway/config';
import { createLogger } from '@gateway/observability';
import { openServiceRuntime, runUntilSignal, type ServiceRuntime } from '@gateway/service-runtime';
import { loadWebhookDispatcherConfig, type WebhookDispatcherConfig } from './config';
import { DEFAULT_RETRY_SCHEDULE, parseRetrySchedule } from './domain/retry-schedule';
import { DeliveryWorker } from './application/delivery-worker';
import { handleGetWebhook } from './handlers/webhook.get.v1';
import { handleListWebhooks } from './handlers/webhook.list.v1';
import { handleRotateWebhookSecret } from './handlers/webhook.rotate-secret.v1';
import { createEndpointLimiter } from './clients/endpoint-limiter';
import { createWebhookSender } from './clients/http-sender';
import { webhookDispatcherDatabase } from './persistence';
import { handleCreateWebhook } from './handlers/webhook.create.v1';
import { deleteWebhook as removeWebhook } from './application/delete-webhook';
import { handleListWebhookDeliveries } from './handlers/webhook.deliveries.list.v1';
import { retryDelivery } from './application/retry-delivery';
import { sendTestWebhook as sendTest } from './application/send-test-webhook';
import { handlePaymentEvent } from './handlers/payment-events.v1';
import { handleRefundEvent } from './handlers/refund-events.v1';
import { handlePayoutEvent } from './handlers/payout-events.v1';
import { handleDisputeEvent } from './handlers/dispute-events.v1';
import { handleSubscriptionEvent } from './handlers/subscription-events.v1';
import { handleGetEvent } from './handlers/event.get.v1';
import { handleListEvents } from './handlers/event.list.v1';
import { eventPurge } from './application/event-purge';
import { EventLogReconciliation } from './application/event-log-reconciliation';

export interface WebhookDispatcherDependencies {
  /** Tests only: a PEM CA trusted instead of Node's store. Operators add a CA with NODE_EXTRA_CA_CERTS. */
  trustedCa?: string;
}

const USER_AGENT = 'gateway-webhooks/1.0';
/** Deliveries one process holds at once (claimed, queued for their origin or sending), over all endpoints. */
const MAX_IN_FLIGHT = 64;
/**
 * How many deliveries of one webhook are claimed ahead of its origin's concurrency: enough that a freed slot never
 * waits for the next claim (measured: docs/benchmarks.md#the-webhook-dispatcher-claims-ahead), few enough to leave most slots to other webhooks.
 */
const CLAIM_AHEAD_PER_SLOT = 4;

export async function startWebhookDispatcher(
  config: WebhookDispatcherConfig,
  dependencies: WebhookDispatcherDependencies = {},
): Promise<ServiceRuntime> {
  const secretKey = Buffer.from(config.WEBHOOK_SECRET_KEY, 'base64');
  const runtime = await openServiceRuntime({
    service: 'webhook-dispatcher',
    config,
    ...webhookDispatcherDatabase,
  });
  const sender = createWebhookSender({
    allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    maxConnectionsPerOrigin: config.WEBHOOK_MAX_CONCURRENCY_PER_ENDPOINT,
    userAgent: USER_AGENT,
    ...(dependencies.trustedCa === undefined ? {} : { ca: dependencies.trustedCa }),
  });
  const limiter = createEndpointLimiter(config.WEBHOOK_MAX_CONCURRENCY_PER_ENDPOINT);
  const worker = new DeliveryWorker({
    dataSource: runtime.dataSource,
    sender,
    limiter,
    secretKey,
    schedule: config.WEBHOOK_RETRY_SCHEDULE
      ? parseRetrySchedule(config.WEBHOOK_RETRY_SCHEDULE)
      : DEFAULT_RETRY_SCHEDULE,
    workerId: config.WORKER_ID,
    pollIntervalMs: config.DELIVERY_POLL_INTERVAL_MS,
    leaseMs: config.DELIVERY_LEASE_MS,
    maxPerWebhook: Math.min(
      MAX_IN_FLIGHT / 2,
      CLAIM_AHEAD_PER_SLOT * config.WEBHOOK_MAX_CONCURRENCY_PER_ENDPOINT,
    ),
    maxInFlight: MAX_IN_FLIGHT,
    logger: runtime.logger,
  });
  // The worker finishes its attempts (and handlers their test deliveries) before the sender closes.
  runtime.onClose('webhook-sender', () => sender.close());
  runtime.onStop('delivery-worker', () => worker.stop());
  worker.start();

  const nudgeWorker = (): void => worker.nudge();
  const retryDeps = { uow: runtime.unitOfWork('webhook.delivery.retry'), onRescheduled: nudgeWorker };
  const testDeps = {
    dataSource: runtime.dataSource,
    uow: runtime.unitOfWork('webhook.test'),
    sender,
    limiter,
    secretKey,
  };
  const paymentEvent = handlePaymentEvent(runtime.dataSource, nudgeWorker);
  const refundEvent = handleRefundEvent(runtime.dataSource, nudgeWorker);
  const payoutEvent = handlePayoutEvent(runtime.dataSource, nudgeWorker);
  const disputeEvent = handleDisputeEvent(runtime.dataSource, nudgeWorker);
  const subscriptionEvent = handleSubscriptionEvent(runtime.dataSource, nudgeWorker);
  const handlers = runtime.broker
    .handlers('webhook-dispatcher')
    .handle(
      createWebhook,
      handleCreateWebhook({
        uow: runtime.unitOfWork('webhook.create'),
        dataSource: runtime.dataSource,
        secretKey,
      }),
    )
    .handle(deleteWebhook, (command, context) =>
      removeWebhook(runtime.unitOfWork('webhook.delete'), command, context),
    )
    .handle(getWebhook, handleGetWebhook(runtime.dataSource))
    .handle(listWebhooks, handleListWebhooks(runtime.dataSource))
    .handle(
      rotateWebhookSecret,
      handleRotateWebhookSecret({
        uow: runtime.unitOfWork('webhook.rotate-secret'),
        dataSource: runtime.dataSource,
        secretKey,
      }),
    )
    .handle(listWebhookDeliveries, handleListWebhookDeliveries(runtime.dataSource))
    .handle(retryWebhookDelivery, (command, context) => retryDelivery(retryDeps, command, context))
    .handle(sendTestWebhook, (command, context) => sendTest(testDeps, command, context))
    .handle(getEvent, handleGetEvent(runtime.dataSource))
    .handle(listEvents, handleListEvents(runtime.dataSource));
  for (const event of publicPaymentEvents) handlers.handle(event, paymentEvent);
  for (const event of publicRefundEvents) handlers.handle(event, refundEvent);
  for (const event of publicPayoutEvents) handlers.handle(event, payoutEvent);
  for (const event of publicDisputeEvents) handlers.handle(event, disputeEvent);
  for (const event of publicSubscriptionEvents)
    handlers.handle(event as (typeof publicSubscriptionEvents)[0], subscriptionEvent);
  await handlers.consume();
  const purge = eventPurge(runtime.dataSource, { logger: runtime.logger });
  purge.start();
  runtime.onStop('event-purge', () => purge.stop());
  const reconciliation = new EventLogReconciliation({
    dataSource: runtime.dataSource,
    ask: (definition, payload, options) => runtime.broker.call(definition, payload, options),
    workerId: config.WORKER_ID,
    intervalMs: config.EVENT_LOG_RECONCILE_INTERVAL_MS,
    pageSize: config.EVENT_LOG_PAGE_SIZE,
    settledSeconds: config.EVENT_LOG_SETTLE_SECONDS,
    readTimeoutMs: config.EVENT_LOG_READ_TIMEOUT_MS,
    onDeliveriesCreated: nudgeWorker,
    logger: runtime.logger,
  });
  reconciliation.start();
  runtime.onStop('event-log-reconciliation', () => reconciliation.stop());
  return runtime;
}

if (require.main === module) {
  const config = loadOrExit(loadWebhookDispatcherConfig);
  runUntilSignal(() => startWebhookDispatcher(config), createLogger('webhook-dispatcher', config.LOG_LEVEL));
}
