/**
 * Backbone figures on this machine: RPC round trip (sequential and concurrent), outbox-to-consumer throughput, and
 * what a quorum queue costs RabbitMQ per request/reply against a classic queue.
 * Run: pnpm --filter @gateway/messaging bench
 */
import { readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import amqp from 'amqplib';
import { createCustomer, paymentCreated, type PaymentEventPayload } from '@gateway/contracts';
import { openServiceDatabase } from '@gateway/persistence';
import {
  aPaymentEvent,
  createTestDatabase,
  infrastructureUrls,
  testLogger,
  uniquePrefix,
} from '@gateway/testkit-core';
import { Broker, outboxInboxMigrations, OutboxRelay, UnitOfWork } from '../src';
import { customerCreated, customerPayload } from '../test/backbone-fixture';

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
      await client.request(createCustomer, customerPayload(), { timeoutMs: 5000 });
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

/** CPU time (user + system, ms) RabbitMQ's Erlang VM has used so far, from /proc. */
function rabbitCpuMs(): number {
  let ticks = 0;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let stat = '';
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue;
    }
    if (!stat.includes('(beam.smp)')) continue;
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks * 10;
}

/**
 * Request/reply through a queue of each type, 32 in flight, 600-byte bodies, non-persistent as our RPC commands are:
 * throughput and RabbitMQ CPU per round trip. Our commands queues are quorum queues (replicated, with a delivery limit
 * and dead-lettering); this says what that costs on the request path.
 */
async function queueTypeCost(url: string, prefix: string, type: 'quorum' | 'classic', total: number) {
  const connection = await amqp.connect(url, { noDelay: true });
  const channel = await connection.createChannel();
  const queue = `${prefix}queue-type-${type}`;
  await channel.assertQueue(queue, { durable: true, arguments: { 'x-queue-type': type } });
  const replies = await channel.assertQueue('', { exclusive: true });
  const consumer = await connection.createChannel();
  await consumer.prefetch(16);
  await consumer.consume(queue, (msg) => {
    if (!msg) return;
    consumer.publish('', msg.properties.replyTo as string, msg.content, {
      correlationId: msg.properties.correlationId as string,
    });
    consumer.ack(msg);
  });
  const waiting = new Map<string, () => void>();
  await channel.consume(
    replies.queue,
    (msg) => msg && waiting.get(msg.properties.correlationId as string)?.(),
    { noAck: true },
  );
  const body = Buffer.alloc(600, 'x');
  const cpuBefore = rabbitCpuMs();
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < total) {
        const id = String(next++);
        await new Promise<void>((resolve) => {
          waiting.set(id, resolve);
          channel.publish('', queue, body, { correlationId: id, replyTo: replies.queue, persistent: false });
        });
        waiting.delete(id);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `request/reply through a ${type} queue: ${Math.round(total / seconds)} round trips/s, RabbitMQ CPU ${((rabbitCpuMs() - cpuBefore) / total).toFixed(3)} ms per round trip`,
  );
  await channel.deleteQueue(queue);
  await connection.close();
}

async function main(): Promise<void> {
  const prefix = uniquePrefix('bench');
  const url = infrastructureUrls().amqpUrl;
  const connect = (name: string) =>
    Broker.connect({ urls: [url], prefix, connectionName: name, logger: testLogger(name) });
  const server = await connect('bench-server');
  const client = await connect('bench-client');
  await server
    .handlers('customer')
    .handle(createCustomer, async (command) => customerCreated(command))
    .consume();
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
  await server
    .handlers('checkout')
    .handle(paymentCreated, async (_payload: PaymentEventPayload, context) => {
      await inbox.once(context, async () => undefined);
      consumed += 1;
    })
    .consume();
  const events = 3000;
  const started = performance.now();
  relay.start();
  await Promise.all(
    Array.from({ length: 8 }, async (_, w) => {
      for (let n = w; n < events; n += 8) {
        await uow.run({}, (tx) => tx.emit(paymentCreated, aPaymentEvent({ amount_centavos: 1000 + n })));
      }
    }),
  );
  while (consumed < events) await new Promise((resolve) => setTimeout(resolve, 20));
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `outbox -> broker -> inbox consumer: ${events} events in ${seconds.toFixed(2)} s (${Math.round(events / seconds)} events/s)`,
  );

  await relay.stop();
  await server.deleteDeclaredTopology();
  await client.close();
  await server.close();
  await dataSource.destroy();
  await database.drop();

  for (const type of ['quorum', 'classic', 'quorum', 'classic'] as const)
    await queueTypeCost(url, prefix, type, 5000);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
