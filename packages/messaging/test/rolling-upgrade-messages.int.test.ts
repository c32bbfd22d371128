import amqp from 'amqplib';
import { paymentConfirmed, type PaymentEventPayload } from '@gateway/contracts';
import { infrastructureUrls, waitFor } from '@gateway/testkit-core';
import { createEnvelope } from '../src';
import { awaitParked, backboneForEachTest, eventPayload, sampleEvent, takeParked } from './backbone-fixture';

/** Publishes a body as it is, straight into a queue (a producer of another release, as the broker sees it). */
async function publishRaw(queue: string, body: unknown): Promise<void> {
  const model = await amqp.connect(infrastructureUrls().amqpUrl);
  try {
    const channel = await model.createConfirmChannel();
    channel.sendToQueue(queue, Buffer.from(JSON.stringify(body)), {
      persistent: true,
      contentType: 'application/json',
    });
    await channel.waitForConfirms();
  } finally {
    await model.close();
  }
}

describe('messages during a rolling upgrade (docs/adr/0038-message-compatibility.md)', () => {
  const backbone = backboneForEachTest();

  /** An older release's checkout consumer of the sample event, counting what it handled. */
  const countingCheckout = async (name: string, retry?: { retryForMs: number }) => {
    const broker = await backbone.connectBroker(name, retry ? { retry } : {});
    let count = 0;
    await broker
      .handlers('checkout')
      .handle(sampleEvent, async () => {
        count += 1;
      })
      .consume();
    return { broker, handled: () => count };
  };

  test('fields a contract does not name are read past, and a payload forwarded whole passes them on', async () => {
    const broker = await backbone.connectBroker('tolerant');
    const forwarded: Array<Record<string, unknown>> = [];
    await broker
      .handlers('checkout')
      .handle(sampleEvent, async (payload: PaymentEventPayload, context) => {
        // Forwards what it read, whole, as a service relaying an event does.
        await broker.publish(paymentConfirmed, payload, { causationId: context.envelope.id });
      })
      .consume();
    await broker
      .handlers('customer')
      .handle(paymentConfirmed, async (payload: PaymentEventPayload) => {
        forwarded.push(payload as unknown as Record<string, unknown>);
      })
      .consume();

    // What a newer release's producer sends: a new field in the envelope, the payload and a nested record.
    const payload = eventPayload(4321);
    const envelope = createEnvelope(sampleEvent, payload);
    await publishRaw(`${backbone.prefix}checkout.events`, {
      ...envelope,
      priority: 'new-envelope-field',
      payload: {
        ...envelope.payload,
        added_in_a_newer_release: 'kept',
        payment: { ...envelope.payload.payment, settlement_hint: 'nested too' },
      },
    });

    await waitFor(() => forwarded.length === 1, { timeoutMs: 15_000, what: 'the forwarded event' });
    expect(forwarded[0]).toMatchObject({
      added_in_a_newer_release: 'kept',
      payment: { amount_centavos: 4321, settlement_hint: 'nested too' },
    });
    expect(await takeParked(backbone, 'checkout.events')).toHaveLength(0);
    expect(await takeParked(backbone, 'customer.events')).toHaveLength(0);
  });

  test('a field the contract names is still checked: a retyped one is parked at once as bad data', async () => {
    const { handled } = await countingCheckout('strict-where-named');
    const envelope = createEnvelope(sampleEvent, eventPayload(100));
    await publishRaw(`${backbone.prefix}checkout.events`, {
      ...envelope,
      payload: { ...envelope.payload, payment: { ...envelope.payload.payment, amount_centavos: '100' } },
    });
    const parked = await awaitParked(backbone, 'checkout.events', 1, {
      timeoutMs: 15_000,
      what: 'the retyped message parked',
    });
    expect(String(parked[0]!.properties.headers?.['x-parked-reason'])).toContain('amount_centavos');
    expect(handled()).toBe(0);
  });

  test.each([
    {
      what: 'a newer version of a known message',
      as: { name: 'payment.created.v2', version: 2 },
      reason: 'payment.created.v2 is newer than this release reads (payment.created up to v1)',
    },
    {
      // A newer release's new event type, which its topology binds to the queue both releases consume.
      what: 'a message type this release has never heard of, on a queue whose handlers do not claim it,',
      as: { name: 'payment.rescheduled.v1', type: 'payment.rescheduled' },
      reason: 'payment.rescheduled.v1 is a message type this release does not know',
    },
  ])(
    '$what is retried for a newer replica, and parked only when none came in the retry window',
    async ({ as, reason }) => {
      const retryForMs = 3000;
      const { broker, handled } = await countingCheckout('older-release', { retryForMs });
      const sentAt = Date.now();
      await publishRaw(`${backbone.prefix}checkout.events`, {
        ...createEnvelope(sampleEvent, eventPayload(200)),
        ...as,
      });
      await broker.publish(sampleEvent, eventPayload(201));

      await waitFor(() => handled() === 1, { timeoutMs: 15_000, what: 'the known event behind it handled' });
      const parked = await awaitParked(backbone, 'checkout.events', 1, {
        timeoutMs: 20_000,
        what: 'the message parked after the retry window',
      });
      const headers = parked[0]!.properties.headers ?? {};
      expect(String(headers['x-parked-reason'])).toContain(reason);
      expect(Number(headers['x-retry-failures'])).toBeGreaterThan(1);
      expect(Date.now() - sentAt).toBeGreaterThanOrEqual(retryForMs);
      expect(handled()).toBe(1);
    },
  );

  test('an event only the newer release handles is left by the older replicas for the newer ones sharing the queue', async () => {
    const older = await backbone.connectBroker('older-replica');
    await older
      .handlers('checkout')
      .handle(sampleEvent, async () => undefined)
      .consume();
    // The newer release handles payment.confirmed too: its binding sends those to the queue both releases consume.
    const newer = await backbone.connectBroker('newer-replica');
    const attempts = new Map<string, number>();
    const firstAttempts: number[] = [];
    const newerHandlers = newer.handlers('checkout').handle(sampleEvent, async () => undefined);
    newerHandlers.handle(paymentConfirmed, async (_payload: PaymentEventPayload, context) => {
      attempts.set(context.envelope.id, (attempts.get(context.envelope.id) ?? 0) + 1);
      firstAttempts.push(context.attempt);
    });
    await newerHandlers.consume();

    const sent: string[] = [];
    for (let n = 0; n < 20; n += 1) {
      const envelope = createEnvelope(paymentConfirmed, eventPayload(300 + n));
      sent.push(envelope.id);
      await older.publishEnvelope(envelope, {});
    }

    await waitFor(() => attempts.size === 20, {
      timeoutMs: 20_000,
      what: 'every event handled by the newer replica',
    });
    expect([...attempts.keys()].sort()).toEqual([...sent].sort());
    expect([...attempts.values()].every((count) => count === 1)).toBe(true);
    // The queue hands its messages to both replicas in turn: those the older one took came back for the newer one.
    expect(firstAttempts.filter((attempt) => attempt > 1).length).toBeGreaterThan(0);
    expect(await takeParked(backbone, 'checkout.events')).toHaveLength(0);
  });
});
