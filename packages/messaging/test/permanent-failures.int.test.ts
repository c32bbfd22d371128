import type { PaymentEventPayload } from '@gateway/contracts';
import { takeParkedMessages, waitFor } from '@gateway/testkit-core';
import type { Broker } from '../src';
import {
  backboneForEachTest,
  customerCreated,
  customerPayload,
  eventPayload,
  sampleCommand,
  sampleEvent,
  type Backbone,
} from './backbone-fixture';

/** A refusal is answered at once (the delivery count proves it was not retried). */
const MAX_DELIVERIES = 5;
const FASTER_THAN_ANY_RETRY_MS = 700;

/** Real statements PostgreSQL refuses, each with the SQLSTATE it answers. */
const refusedByPostgres: Record<string, (backbone: Backbone) => Promise<unknown>> = {
  'a NUL byte in a text value (22021)': (backbone) =>
    backbone.dataSource.query('INSERT INTO effects (consumer, message_id) VALUES ($1, $2)', [
      'checkout',
      'pay_\u0000',
    ]),
  'a number out of range (22003)': (backbone) => backbone.dataSource.query('SELECT $1::int', ['99999999999']),
  'a malformed integer (22P02)': (backbone) => backbone.dataSource.query('SELECT $1::bigint', ['12abc']),
  'a NOT NULL violation (23502)': (backbone) =>
    backbone.dataSource.query('INSERT INTO effects (consumer, message_id) VALUES (NULL, $1)', ['m']),
  'a check violation (23514)': (backbone) =>
    backbone.dataSource.query(
      `DO $$ BEGIN RAISE EXCEPTION 'amount must be positive' USING ERRCODE = 'check_violation'; END $$`,
    ),
};

/** Fails with a real PostgreSQL error of the given SQLSTATE. */
const raiseSqlState = (backbone: Backbone, sqlState: string) =>
  backbone.dataSource.query(`DO $$ BEGIN RAISE EXCEPTION 'simulated' USING ERRCODE = '${sqlState}'; END $$`);

describe('a failure that would fail the same way again is never retried', () => {
  const backbone = backboneForEachTest();
  let broker: Broker;

  beforeEach(async () => {
    broker = await backbone.connectBroker('refusals', { maxDeliveries: MAX_DELIVERIES });
  });

  test.each(Object.entries(refusedByPostgres))(
    'an event whose handler hits %s is delivered once and parked at once, and the events behind it are handled',
    async (_, failingStatement) => {
      const deliveries = new Map<number, number>();
      const handled: number[] = [];
      await broker
        .handlers('checkout')
        .handle(sampleEvent, async (payload: PaymentEventPayload) => {
          const amount = payload.payment.amount_centavos;
          deliveries.set(amount, (deliveries.get(amount) ?? 0) + 1);
          if (amount === 100) await failingStatement(backbone);
          handled.push(amount);
        })
        .consume();
      const parkingQueue = `${backbone.prefix}checkout.events.parking`;

      const started = Date.now();
      const poison = await broker.publish(sampleEvent, eventPayload(100));
      await broker.publish(sampleEvent, eventPayload(101));
      const parked = await waitFor(
        async () => {
          const taken = await takeParkedMessages(parkingQueue);
          return taken.length > 0 ? taken : undefined;
        },
        { what: 'the parked event' },
      );
      const elapsedMs = Date.now() - started;

      expect(parked.map((m) => m.messageId)).toEqual([poison.id]);
      expect(parked[0]?.reason).toMatch(/QueryFailedError/);
      expect(elapsedMs).toBeLessThan(FASTER_THAN_ANY_RETRY_MS);
      await waitFor(() => handled.includes(101), { what: 'the event behind the refused one' });
      expect(deliveries.get(100)).toBe(1);
    },
  );

  test('a command whose handler hits invalid data gets an error reply at once, once, and nothing is parked', async () => {
    const client = await backbone.connectBroker('refusals-client');
    let deliveries = 0;
    await broker
      .handlers('customer')
      .handle(sampleCommand, async (command) => {
        deliveries += 1;
        await refusedByPostgres['a NUL byte in a text value (22021)']!(backbone);
        return customerCreated(command);
      })
      .consume();

    const started = Date.now();
    const reply = await client.request(sampleCommand, customerPayload(), { timeoutMs: 5000 });
    const elapsedMs = Date.now() - started;

    expect(reply).toEqual({ ok: false, error: { code: 'INVALID_FIELDS', message: 'Campos inválidos.' } });
    expect(elapsedMs).toBeLessThan(FASTER_THAN_ANY_RETRY_MS);
    expect(deliveries).toBe(1);
    expect(await takeParkedMessages(`${backbone.prefix}customer.commands.parking`)).toEqual([]);
  });

  test('a command whose handler hits a constraint violation gets INTERNAL_ERROR at once, once', async () => {
    const client = await backbone.connectBroker('refusals-client');
    let deliveries = 0;
    await broker
      .handlers('customer')
      .handle(sampleCommand, async (command) => {
        deliveries += 1;
        await refusedByPostgres['a NOT NULL violation (23502)']!(backbone);
        return customerCreated(command);
      })
      .consume();

    const started = Date.now();
    const reply = await client.request(sampleCommand, customerPayload(), { timeoutMs: 5000 });

    expect(reply).toEqual({
      ok: false,
      error: { code: 'INTERNAL_ERROR', message: 'Erro interno do servidor.' },
    });
    expect(Date.now() - started).toBeLessThan(FASTER_THAN_ANY_RETRY_MS);
    expect(deliveries).toBe(1);
  });

  test.each([
    ['a serialization failure', '40001'],
    ['a deadlock', '40P01'],
    ['a lock timeout', '55P03'],
    ['an administrator shutdown', '57P01'],
    ['a lost connection', '08006'],
  ])('an event whose handler hits %s is redelivered until it succeeds', async (_, sqlState) => {
    const attempts: number[] = [];
    await broker
      .handlers('checkout')
      .handle(sampleEvent, async (_payload: PaymentEventPayload, context) => {
        attempts.push(context.attempt);
        if (context.attempt < 3) await raiseSqlState(backbone, sqlState);
      })
      .consume();

    await broker.publish(sampleEvent, eventPayload(100));

    await waitFor(() => attempts.length === 3, { what: 'the third delivery' });
    expect(attempts).toEqual([1, 2, 3]);
    expect(await takeParkedMessages(`${backbone.prefix}checkout.events.parking`)).toEqual([]);
  });

  test('a command whose handler hits a transient failure is redelivered and its caller gets the result', async () => {
    const client = await backbone.connectBroker('refusals-client');
    const attempts: number[] = [];
    await broker
      .handlers('customer')
      .handle(sampleCommand, async (command, context) => {
        attempts.push(context.attempt);
        if (context.attempt === 1) await raiseSqlState(backbone, '40001');
        return customerCreated(command);
      })
      .consume();

    const payload = customerPayload();
    const reply = await client.request(sampleCommand, payload, { timeoutMs: 5000 });

    expect(reply.ok && reply.result.business_id).toBe(payload.business_id);
    expect(attempts).toEqual([1, 2]);
  });
});
