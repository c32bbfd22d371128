import amqp from 'amqplib';
import { randomBytes } from 'node:crypto';
import type { DataSource, MigrationInterface, QueryRunner } from 'typeorm';
import {
  defineCommand,
  defineEvent,
  type CreateCustomer,
  type Customer,
  type PaymentEventPayload,
} from '@gateway/contracts';
import { openServiceDatabase, schemaOf } from '@gateway/persistence';
import {
  aPaymentEvent,
  createTestDatabase,
  testLogger,
  uniquePrefix,
  infrastructureUrls,
  startedForEachTest,
  type TestDatabase,
  waitFor,
} from '@gateway/testkit-core';
import Joi from 'joi';
import {
  Broker,
  addOutboxInsertedAt,
  dropOutboxInsertedAt,
  outboxInboxMigrations,
  OutboxRelay,
  type OutboxRelayOptions,
  type RetrySchedule,
  type UnitOfWork,
} from '../src';

class EffectsTable1732300000001 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE ${schemaOf(queryRunner)}.effects (consumer text NOT NULL, message_id text NOT NULL)`,
    );
  }
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE ${schemaOf(queryRunner)}.effects`);
  }
}

/** The event log's column, as the services that serve one add it (the payment service, the ledger). */
class OutboxInsertedAt1732300000002 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await addOutboxInsertedAt(queryRunner);
  }
  async down(queryRunner: QueryRunner): Promise<void> {
    await dropOutboxInsertedAt(queryRunner);
  }
}

/**
 * Real messages of the catalogue are used so the broker's contract checks run; tests use event/command names that
 * exist in the catalogue and a private prefix so nothing else consumes them.
 */
export { paymentCreated as sampleEvent, createCustomer as sampleCommand } from '@gateway/contracts';

export const unknownButWellFormed = defineEvent('backbone.test-only.v1', Joi.object({ n: Joi.number() }));
export const unregisteredCommand = defineCommand(
  'backbone.nobody-home.v1',
  'customer',
  Joi.object({}),
  Joi.any(),
  [],
);

/** The production schedule scaled down from seconds to tens of milliseconds, without jitter (gaps are exact). */
export const FAST_RETRY: RetrySchedule = {
  tiersMs: [50, 100, 200, 400],
  baseDelayMs: 50,
  maxDelayMs: 400,
  jitter: 0,
  retryForMs: 10_000,
};

export const id = (prefix: string) => `${prefix}_${randomBytes(18).toString('base64url')}`;

/** A `payment.created.v1` payload told apart by its amount. */
export function eventPayload(amountCentavos: number): PaymentEventPayload {
  return aPaymentEvent({ amount_centavos: amountCentavos });
}

/** A `customer.create.v1` command payload for a new business. */
export const customerPayload = (): CreateCustomer => ({
  business_id: id('biz'),
  name: null,
  email: null,
  phone_number: null,
  document_number: null,
  ip: null,
  metadata: null,
});

/** What the customer service answers a `customer.create.v1` command with: the customer it made. */
export const customerCreated = (command: CreateCustomer): Customer => ({
  customer_id: id('cust'),
  ...command,
  created_at: new Date().toISOString(),
});

export interface Backbone {
  database: TestDatabase;
  prefix: string;
  dataSource: DataSource;
  connectBroker(
    name: string,
    options?: {
      maxDeliveries?: number;
      retry?: Partial<RetrySchedule>;
      prefetch?: number;
      url?: string;
      /** As a service's broker: the whole topology of the stack declared when it connects. */
      wholeTopology?: boolean;
      /** As a service's broker: its event handlers must be its `eventSubscriptions` exactly. */
      exactSubscriptions?: boolean;
    },
  ): Promise<Broker>;
  relay(broker: Broker, uow: UnitOfWork, options?: Partial<OutboxRelayOptions>): OutboxRelay;
  effects(consumer: string): Promise<Map<string, number>>;
  close(): Promise<void>;
}

export async function openBackbone(): Promise<Backbone> {
  const database = await createTestDatabase();
  const prefix = uniquePrefix('backbone');
  const dataSource = await openServiceDatabase({
    url: database.url,
    schema: 'backbone',
    entities: [],
    migrations: [...outboxInboxMigrations, EffectsTable1732300000001, OutboxInsertedAt1732300000002],
  });
  const brokers: Broker[] = [];
  const relays: OutboxRelay[] = [];
  return {
    database,
    prefix,
    dataSource,
    async connectBroker(name, options = {}) {
      const broker = await Broker.connect({
        urls: [options.url ?? infrastructureUrls().amqpUrl],
        prefix,
        connectionName: name,
        logger: testLogger(name),
        maxDeliveries: options.maxDeliveries ?? 3,
        prefetch: options.prefetch,
        retry: { ...FAST_RETRY, ...options.retry },
        maxReconnectDelayMs: 500,
        wholeTopology: options.wholeTopology,
        exactSubscriptions: options.exactSubscriptions,
      });
      brokers.push(broker);
      return broker;
    },
    relay(broker, uow, options = {}) {
      const relay = new OutboxRelay(dataSource, broker, {
        logger: testLogger('relay'),
        intervalMs: 100,
        ...options,
      });
      uow.onCommitWithMessages(() => relay.nudge());
      relays.push(relay);
      relay.start();
      return relay;
    },
    async effects(consumer) {
      const rows: Array<{ message_id: string; n: string }> = await dataSource.query(
        'SELECT message_id, count(*) AS n FROM effects WHERE consumer = $1 GROUP BY message_id',
        [consumer],
      );
      return new Map(rows.map((r) => [r.message_id, Number(r.n)]));
    },
    async close() {
      for (const relay of relays) await relay.stop();
      // Every broker closed before any name is deleted: a connected broker whose consumer's queue is deleted declares
      // its topology again, and the test's queues would outlive it on the shared broker.
      for (const broker of brokers) await broker.close();
      // On the node itself: a test's broker may have reached it through a proxy the test has closed.
      for (const broker of brokers) await broker.deleteDeclaredTopology(infrastructureUrls().amqpUrl);
      await dataSource.destroy();
      await database.drop();
    },
  };
}

/** A fresh backbone (`openBackbone`) for each test of the enclosing describe, closed after it. */
export function backboneForEachTest(): Backbone {
  return startedForEachTest(openBackbone);
}

/** Takes every message parked now from a queue's parking queue (`checkout.events`, say). */
export async function takeParked(backbone: Backbone, queue: string): Promise<amqp.GetMessage[]> {
  const model = await amqp.connect(infrastructureUrls().amqpUrl);
  try {
    const channel = await model.createChannel();
    const messages: amqp.GetMessage[] = [];
    for (;;) {
      const msg = await channel.get(`${backbone.prefix}${queue}.parking`, { noAck: true });
      if (!msg) break;
      messages.push(msg);
    }
    return messages;
  } finally {
    await model.close();
  }
}

/** Waits until `count` messages have been parked from a queue (`checkout.events`, say) and answers them. */
export async function awaitParked(
  backbone: Backbone,
  queue: string,
  count: number,
  options: { timeoutMs: number; what: string },
): Promise<amqp.GetMessage[]> {
  const parked: amqp.GetMessage[] = [];
  await waitFor(async () => {
    parked.push(...(await takeParked(backbone, queue)));
    return parked.length === count;
  }, options);
  return parked;
}
