/**
 * A consumer process that dies (exit 1) right after its handler committed, before the ack: the broker must redeliver
 * and the inbox must make the redelivery a no-op. Started by backbone.int.test.ts with the test's settings.
 */
import { paymentCreated } from '@gateway/contracts';
import { serviceDataSource } from '@gateway/persistence';
import { testLogger } from '@gateway/testkit-core';
import { Broker, UnitOfWork } from '../../src';
import { FAST_RETRY } from '../backbone-fixture';

async function main(): Promise<void> {
  const [databaseUrl, amqpUrl, prefix] = process.argv.slice(2) as [string, string, string];
  const dataSource = serviceDataSource({
    url: databaseUrl,
    schema: 'backbone',
    entities: [],
    migrations: [],
  });
  await dataSource.initialize();
  const inbox = new UnitOfWork(dataSource, 'checkout');
  // Same delivery limit and delay queues as the test's brokers: queue arguments must match on every declaration.
  const broker = await Broker.connect({
    urls: [amqpUrl],
    prefix,
    connectionName: 'dying-consumer',
    logger: testLogger(),
    maxDeliveries: 3,
    retry: FAST_RETRY,
  });
  await broker
    .handlers('checkout')
    .handle(paymentCreated, async (_payload: unknown, context) => {
      await inbox.once(context, async (tx) => {
        await tx.manager.query('INSERT INTO effects (consumer, message_id) VALUES ($1, $2)', [
          'checkout',
          context.envelope.id,
        ]);
      });
      process.exit(1);
    })
    .consume();
  process.stdout.write('consuming\n');
}

void main();
