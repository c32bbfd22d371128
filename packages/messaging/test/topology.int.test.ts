import amqp from 'amqplib';
import { eventSubscriptions, paymentConfirmed, type Envelope } from '@gateway/contracts';
import { infrastructureUrls, waitFor } from '@gateway/testkit-core';
import type { Broker } from '../src';
import { backboneForEachTest, eventPayload, type Backbone } from './backbone-fixture';

/** Connects as a service of the stack does: the whole topology declared, its handlers held to its subscriptions. */
const asAService = { wholeTopology: true, exactSubscriptions: true };

/** Starts a checkout-like consumer as a service does: handlers for exactly its declared events, then consuming. */
async function startCheckout(backbone: Backbone): Promise<Envelope[]> {
  const handled: Envelope[] = [];
  const broker = await backbone.connectBroker('checkout', asAService);
  const handlers = broker.handlers('checkout');
  for (const event of eventSubscriptions.checkout)
    handlers.handle(event, async (_payload, context) => void handled.push(context.envelope));
  await handlers.consume();
  return handled;
}

/** Publishes once the broker is connected again (a publish fails fast while it is not). */
async function publishWhenConnected(broker: Broker, amountCentavos: number): Promise<Envelope> {
  return waitFor(
    () => broker.publish(paymentConfirmed, eventPayload(amountCentavos)).catch(() => undefined),
    {
      what: 'a publish on the healed connection',
    },
  );
}

describe('every service declares the whole topology, so no event waits for its consumer to bind it', () => {
  const backbone = backboneForEachTest();

  test('an event published before its consumer ever started is handled once it starts', async () => {
    const publisher = await backbone.connectBroker('payment', asAService);
    const sent = await publisher.publish(paymentConfirmed, eventPayload(700));

    const handled = await startCheckout(backbone);

    await waitFor(() => handled.length >= 1, { what: 'the early event handled' });
    expect(handled.map((envelope) => envelope.id)).toEqual([sent.id]);
  });

  test('after a reconnect the whole topology is declared again: a lost consumer queue is back, bound', async () => {
    const publisher = await backbone.connectBroker('payment', asAService);
    const queue = `${backbone.prefix}checkout.events`;
    const model = await amqp.connect(infrastructureUrls().amqpUrl, { noDelay: true });
    try {
      await (await model.createChannel()).deleteQueue(queue);
    } finally {
      await model.close();
    }
    // Before the reconnect, nothing routes there: the queue is gone.
    await publisher.publish(paymentConfirmed, eventPayload(701));

    publisher.dropConnectionForTesting();
    const sent = await publishWhenConnected(publisher, 702);
    const handled = await startCheckout(backbone);

    await waitFor(() => handled.length >= 1, { what: 'the event published after the reconnect handled' });
    expect(handled.map((envelope) => envelope.id)).toEqual([sent.id]);
  });
});
