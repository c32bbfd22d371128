import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  NodeTracerProvider,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-node';
import { inSpan, tracerOf } from '@gateway/observability';
import { infrastructureUrls, startTcpProxy, testLogger, waitFor, type TcpProxy } from '@gateway/testkit-core';
import { OutboxRelay, UnitOfWork, type Broker } from '../src';
import { eventPayload, openBackbone, sampleEvent, type Backbone } from './backbone-fixture';

/**
 * The backbone's own spans, recorded by the OTel SDK in this process (its in-memory exporter: jest cannot load the OTLP
 * exporter's transport): a message carries its trace through the outbox, a publish that is not confirmed, and a
 * retried delivery.
 */
describe('trace context through the outbox, retries and redeliveries', () => {
  const tracer = tracerOf('trace-propagation-test');
  const exported = new InMemorySpanExporter();
  let backbone: Backbone;
  let proxy: TcpProxy;

  beforeAll(async () => {
    // The context manager and the W3C propagator are @gateway/observability's, as in a service.
    new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exported)] }).register({
      contextManager: null,
      propagator: null,
    });
    backbone = await openBackbone();
    const amqp = new URL(infrastructureUrls().amqpUrl);
    proxy = await startTcpProxy({ host: amqp.hostname, port: Number(amqp.port || 5672) });
  });

  afterAll(async () => {
    await backbone?.close();
    await proxy?.close();
  });

  const spansOf = (messageId: string, name: string): ReadableSpan[] =>
    exported
      .getFinishedSpans()
      .filter((span) => span.name === name && span.attributes['messaging.message.id'] === messageId);
  const idOf = (span: ReadableSpan | undefined) => span?.spanContext().spanId;

  test('a row published again by another relay after an unconfirmed publish continues the trace it was emitted in, and its delivery is processed under that publish', async () => {
    const uow = new UnitOfWork(backbone.dataSource, 'traced-publisher');
    const relayThrough = (broker: Broker) =>
      new OutboxRelay(backbone.dataSource, broker, { logger: testLogger('relay'), leaseMs: 2000 });
    const stalled = relayThrough(
      await backbone.connectBroker('stalled-traced-publisher', {
        url: proxy.urlFor(infrastructureUrls().amqpUrl),
      }),
    );
    const healthy = relayThrough(await backbone.connectBroker('healthy-traced-publisher'));
    const subscriber = await backbone.connectBroker('traced-subscriber');
    await subscriber
      .handlers('checkout')
      .handle(sampleEvent, async () => undefined)
      .consume();

    const { origin, messageId } = await inSpan(tracer, 'emitting operation', {}, async (span) => ({
      origin: span.spanContext(),
      messageId: (await uow.run({}, (tx) => tx.emit(sampleEvent, eventPayload(4200)))).id,
    }));
    proxy.pause();
    expect(await stalled.drainOnce()).toBe(0);
    await proxy.refuse();
    await waitFor(async () => (await healthy.drainOnce()) === 1, {
      what: 'the row published after the lease',
    });

    const [processed] = await waitFor(
      () => {
        const found = spansOf(messageId, `process ${sampleEvent.name}`);
        return found.length > 0 && found;
      },
      { what: 'the delivery processed' },
    );
    const publishes = spansOf(messageId, `publish ${sampleEvent.name}`);
    const confirmed = publishes.find((span) => idOf(span) === processed!.parentSpanContext?.spanId);
    expect(confirmed?.kind).toBe(SpanKind.PRODUCER);
    expect(processed!.kind).toBe(SpanKind.CONSUMER);
    // Both publishes of the row, the one never confirmed (an error once its connection dropped) and the one after its
    // lease, continue the emitting operation's span.
    expect(publishes.map((span) => span.status.code).sort()).toEqual([
      SpanStatusCode.UNSET,
      SpanStatusCode.ERROR,
    ]);
    expect(publishes.map((span) => span.parentSpanContext)).toEqual(
      publishes.map(() => expect.objectContaining({ traceId: origin.traceId, spanId: origin.spanId })),
    );
    expect(processed!.spanContext().traceId).toBe(origin.traceId);
  });

  test('a delivery failing transiently is processed again in a sibling span under the same publish, its attempt counted', async () => {
    const broker = await backbone.connectBroker('retried-traced-consumer');
    await broker
      .handlers('customer')
      .handle(sampleEvent, async (_payload: unknown, context) => {
        if (context.attempt === 1)
          await backbone.dataSource.query(
            `DO $$ BEGIN RAISE EXCEPTION 'simulated' USING ERRCODE = 'serialization_failure'; END $$`,
          );
      })
      .consume();
    const messageId = await inSpan(
      tracer,
      'publishing operation',
      {},
      async () => (await broker.publish(sampleEvent, eventPayload(4300))).id,
    );

    const deliveries = await waitFor(
      () => {
        // The first test's subscriber gets the event too, on its own queue.
        const found = spansOf(messageId, `process ${sampleEvent.name}`).filter(
          (span) =>
            span.attributes['messaging.destination.subscription.name'] ===
            `${backbone.prefix}customer.events`,
        );
        return found.length === 2 && found;
      },
      { what: 'both deliveries processed' },
    );
    const [publish] = spansOf(messageId, `publish ${sampleEvent.name}`);
    const byAttempt = deliveries.sort(
      (a, b) =>
        Number(a.attributes['gateway.message.attempt']) - Number(b.attributes['gateway.message.attempt']),
    );
    expect(
      byAttempt.map((span) => [
        span.parentSpanContext?.spanId,
        span.attributes['gateway.message.attempt'],
        span.status.code,
      ]),
    ).toEqual([
      [idOf(publish), 1, SpanStatusCode.ERROR],
      [idOf(publish), 2, SpanStatusCode.UNSET],
    ]);
  });
});
