/**
 * A service process as every service's main runs one (openServiceRuntime under runUntilSignal), for
 * graceful-shutdown.int.test.ts to signal: its one handler works for as many milliseconds as the payment's amount
 * says. It logs JSON lines (info) to stdout: `consuming` once ready, `handling`/`handled` around each message.
 */
import type { PaymentEventPayload } from '@gateway/contracts';
import { createLogger } from '@gateway/observability';
import { openServiceRuntime, runUntilSignal, type MessageContext } from '../../src';
import { sampleEvent } from '../backbone-fixture';

const [databaseUrl, amqpUrl, prefix, shutdownTimeoutMs] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
];
const logger = createLogger('signalled-service', 'info');

runUntilSignal(async () => {
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
  });
  await runtime.broker.consumeEvents('checkout', [sampleEvent.name], {
    [sampleEvent.name]: async (payload: PaymentEventPayload, context: MessageContext) => {
      logger.info({ message_id: context.envelope.id }, 'handling');
      await new Promise((resolve) => setTimeout(resolve, payload.payment.amount_centavos));
      logger.info({ message_id: context.envelope.id }, 'handled');
    },
  });
  logger.info('consuming');
  return runtime;
}, logger);
