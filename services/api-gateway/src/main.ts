// First: tracing must start before the modules it instruments are loaded.
import './telemetry';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadOrExit } from '@gateway/config';
import {
  paymentCancelled,
  paymentConfirmed,
  paymentCreated,
  paymentExpired,
  paymentFailed,
  paymentChanged,
  refundSucceeded,
  readPaymentChanges,
  type PaymentChanged,
  type PaymentEventPayload,
} from '@gateway/contracts';
import { createLogger } from '@gateway/observability';
import {
  gracefulHttpStop,
  openServiceRuntime,
  runUntilSignal,
  type ServiceRuntime,
} from '@gateway/service-runtime';
import { createApp } from './http/app';
import { loadApiGatewayConfig, type ApiGatewayConfig } from './config';
import { idempotencyPurge } from './application/idempotency-purge';
import { answerClientError } from './http/client-error';
import { apiGatewayDatabase } from './persistence';
import { createRedisClient, whenReady } from './clients/redis';
import { applyPaymentEvent } from './application/apply-payment-event';
import { outdatePaymentCopy } from './application/outdate-payment-copy';
import type { PaymentCopies } from './application/shared/payment-copies';
import { EventFeedHealth } from './domain/event-feed-health';
import { ChangeFeedWatermark } from './domain/change-feed-watermark';
import { paymentCopyCatchUp } from './application/payment-copy-catch-up';

export interface RunningApiGateway {
  /** Where it listens, e.g. `http://127.0.0.1:3000`. */
  url: string;
  runtime: ServiceRuntime;
  stop(): Promise<void>;
}

const REDIS_STARTUP_WAIT_MS = 3000;

/** A read of the payment change feed waits this long for its page (a pass that fails is tried again next interval). */
const CHANGE_FEED_TIMEOUT_MS = 2000;

/**
 * The copy of an open payment is answered only while the payment events reach the gateway within this long of when they
 * occurred (the webhook dispatcher and the checkout service get them at the same time; docs/adr/0042).
 */
const PAYMENT_EVENTS_MAX_LAG_MS = 1000;

/**
 * A slow client holds no connection long: its headers within 10 s, its whole request (a small JSON body) within 30 s.
 * An idle kept-alive connection is kept 65 s, past the 60 s idle timeout of common load balancers, so they close it
 * first and never send a request on a connection the gateway is closing.
 */
const CONNECTION_TIMEOUTS = { headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 65_000 };

/**
 * Opens database (migrated), broker and Redis, serves HTTP on PORT (0 picks a free port) and purges expired
 * idempotency records.
 */
export async function startApiGateway(config: ApiGatewayConfig): Promise<RunningApiGateway> {
  const runtime = await openServiceRuntime({ service: 'api-gateway', config, ...apiGatewayDatabase });
  const { dataSource } = runtime;
  // The payment copies reads are answered from (docs/adr/0042-gateway-payment-read-model.md).
  const paymentCopies: PaymentCopies = {
    dataSource,
    maxAgeMs: config.PAYMENT_COPY_MAX_AGE_MS,
    feed: new EventFeedHealth(PAYMENT_EVENTS_MAX_LAG_MS, config.PAYMENT_COPY_MAX_AGE_MS),
    changeFeed: new ChangeFeedWatermark(),
    logger: runtime.logger,
  };
  const keepCopy = (event: PaymentEventPayload | PaymentChanged) => applyPaymentEvent(paymentCopies, event);
  await runtime.broker
    .handlers('api-gateway')
    .handle(paymentCreated, keepCopy)
    .handle(paymentConfirmed, keepCopy)
    .handle(paymentExpired, keepCopy)
    .handle(paymentFailed, keepCopy)
    .handle(paymentCancelled, keepCopy)
    .handle(paymentChanged, keepCopy)
    .handle(refundSucceeded, (event) =>
      outdatePaymentCopy(paymentCopies, event.business_id, event.refund.payment_id),
    )
    .consume();
  const redis = createRedisClient(config.REDIS_URL, runtime.logger);
  await whenReady(redis, REDIS_STARTUP_WAIT_MS);
  const app = createApp({
    config,
    dataSource,
    paymentCopies,
    broker: runtime.broker,
    redis,
    logger: runtime.logger,
  });
  const server = createServer({ requireHostHeader: false, ...CONNECTION_TIMEOUTS }, app).listen(config.PORT);
  server.on('clientError', answerClientError);
  const stopServing = gracefulHttpStop(server);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const purge = idempotencyPurge(runtime.dataSource, runtime.logger, config.IDEMPOTENCY_PURGE_INTERVAL_MS);
  purge.start();
  const catchUp = paymentCopyCatchUp(
    paymentCopies,
    (query) => runtime.broker.call(readPaymentChanges, query, { timeoutMs: CHANGE_FEED_TIMEOUT_MS }),
    config.PAYMENT_COPY_CATCH_UP_INTERVAL_MS,
  );
  catchUp.start();
  // Requests in flight get their answers (the broker stays open for their replies) before Redis goes.
  runtime.onStop('http-listener', stopServing);
  runtime.onStop('idempotency-purge', () => purge.stop());
  runtime.onStop('payment-copy-catch-up', () => catchUp.stop());
  runtime.onClose('redis', async () => redis.disconnect());
  const { port } = server.address() as AddressInfo;
  runtime.logger.info({ port }, 'api gateway listening');
  return { url: `http://127.0.0.1:${port}`, runtime, stop: () => runtime.stop() };
}

if (require.main === module) {
  const config = loadOrExit(loadApiGatewayConfig);
  runUntilSignal(() => startApiGateway(config), createLogger('api-gateway', config.LOG_LEVEL));
}
