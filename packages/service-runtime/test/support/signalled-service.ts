/**
 * A service process as every service's main runs one (openServiceRuntime under runUntilSignal), for
 * graceful-shutdown.int.test.ts to signal: its one handler works for as many milliseconds as the payment's amount
 * says; its start takes `startupMs` more. It logs JSON lines (info) to stdout: `starting`, `consuming` once started,
 * `handling`/`handled` around each message.
 */
import { paymentCreated as sampleEvent, type PaymentEventPayload } from '@gateway/contracts';
import type { MessageContext } from '@gateway/messaging';
import { createLogger } from '@gateway/observability';
import { openServiceRuntime, runUntilSignal } from '../../src';

const [databaseUrl, amqpUrl, prefix, shutdownTimeoutMs, startupMs] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
];
const logger = createLogger('signalled-service', 'info');

runUntilSignal(async () => {
  logger.info('starting');
  const runtime = await openServiceRuntime({
    service: 'checkout',
    config: {
      DATABASE_URL: databaseUrl,
      AMQP_URL: amqpUrl,
      AMQP_PREFIX: prefix,
      LOG_LEVEL: 'info',
      SHUTDOWN_TIMEOUT_MS: Number(shutdownTimeoutMs),
    },
    schema: 'signalled',
    entities: [],
    migrations: [],
    logger,
    // A sample service: it handles a sample event, not the checkout service's subscriptions.
    exactSubscriptions: false,
  });
  await runtime.broker
    .handlers('checkout')
    .handle(sampleEvent, async (payload: PaymentEventPayload, context: MessageContext) => {
      logger.info({ message_id: context.envelope.id }, 'handling');
      await new Promise((resolve) => setTimeout(resolve, payload.payment.amount_centavos));
      logger.info({ message_id: context.envelope.id }, 'handled');
    })
    .consume();
  await new Promise((resolve) => setTimeout(resolve, Number(startupMs)));
  logger.info('consuming');
  return runtime;
}, logger);
