/**
 * Backbone figures on this machine: RPC round trip (sequential and concurrent) and outbox-to-consumer throughput.
 * Run: pnpm --filter @gateway/messaging bench
 */
import { performance } from 'node:perf_hooks';
import { createCustomer, newPublicId, paymentCreated, type PaymentEventPayload } from '@gateway/contracts';
import { openServiceDatabase } from '@gateway/persistence';
import {
  createTestDatabase,
  deleteBrokerNames,
  infrastructureUrls,
  testLogger,
  uniquePrefix,
} from '@gateway/testkit';
import { Broker, outboxInboxMigrations, OutboxRelay, UnitOfWork } from '../src';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function rpcRound(client: Broker, total: number, concurrency: number): Promise<void> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < total) {
      next += 1;
      const t0 = performance.now();
      await client.request(
        createCustomer,
        {
          business_id: newPublicId('biz'),
          email: null,
          phone_number: null,
          document_number: null,
          ip: null,
          metadata: null,
        },
        { timeoutMs: 5000 },
      );
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  console.log(
    `rpc concurrency=${concurrency}: ${Math.round(total / seconds)} req/s, p50 ${percentile(latencies, 50).toFixed(2)} ms, p99 ${percentile(latencies, 99).toFixed(2)} ms`,
  );
}

async function main(): Promise<void> {
  const prefix = uniquePrefix('bench');
  const url = infrastructureUrls().amqpUrl;
  const connect = (name: string) =>
    Broker.connect({ url, prefix, connectionName: name, logger: testLogger(name) });
  const server = await connect('bench-server');
  const client = await connect('bench-client');
  await server.consumeCommands('customer', {
    [createCustomer.name]: async (command: { business_id: string }) => ({
      customer_id: newPublicId('cust'),
      business_id: command.business_id,
      email: null,
      phone_number: null,
      document_number: null,
      ip: null,
      metadata: null,
      created_at: new Date().toISOString(),
    }),
  });
  await rpcRound(client, 300, 1);
  await rpcRound(client, 2000, 1);
  await rpcRound(client, 4000, 32);

  const database = await createTestDatabase();
  const dataSource = await openServiceDatabase({
    url: database.url,
    schema: 'bench',
    entities: [],
    migrations: outboxInboxMigrations,
  });
  const uow = new UnitOfWork(dataSource, 'bench');
  const relay = new OutboxRelay(dataSource, client, { logger: testLogger('relay') });
  uow.onCommitWithMessages(() => relay.nudge());
  let consumed = 0;
  const inbox = new UnitOfWork(dataSource, 'bench-consumer');
  await server.consumeEvents('checkout', ['payment.*.v1'], {
    [paymentCreated.name]: async (_payload: PaymentEventPayload, context) => {
      await inbox.once(context, async () => undefined);
      consumed += 1;
    },
  });
  const events = 3000;
  const now = new Date().toISOString();
  const started = performance.now();
  relay.start();
  await Promise.all(
    Array.from({ length: 8 }, async (_, w) => {
      for (let n = w; n < events; n += 8) {
        await uow.run({}, (tx) =>
          tx.emit(paymentCreated, {
            event_id: newPublicId('evt'),
            business_id: newPublicId('biz'),
            occurred_at: now,
            payment: {
              payment_id: newPublicId('pay'),
              transaction_id: null,
              business_id: newPublicId('biz'),
              method: 'pix',
              status: 'processing',
              amount_centavos: 1000 + n,
              fee_centavos: 10,
              external_id: null,
              failure_code: null,
              failure_reason: null,
              metadata: null,
              created_at: now,
              updated_at: now,
            },
          }),
        );
      }
    }),
  );
  while (consumed < events) await new Promise((resolve) => setTimeout(resolve, 20));
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `outbox -> broker -> inbox consumer: ${events} events in ${seconds.toFixed(2)} s (${Math.round(events / seconds)} events/s)`,
  );

  await relay.stop();
  await client.close();
  await server.close();
  await dataSource.destroy();
  await database.drop();
  await deleteBrokerNames(prefix);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
