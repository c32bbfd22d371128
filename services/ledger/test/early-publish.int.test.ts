import {
  eventSubscriptions,
  getBalance,
  newPublicId,
  paymentConfirmed,
  serviceNames,
} from '@gateway/contracts';
import { Broker, TopologyNames } from '@gateway/messaging';
import {
  aPaymentEvent,
  messagesWaitingIn,
  testLogger,
  waitFor,
  type IsolatedEnvironment,
} from '@gateway/testkit';
import { ledgerServiceForTheseTests } from './support/ledger-service';

const businessId = newPublicId('biz');
const payment = aPaymentEvent({
  business_id: businessId,
  status: 'paid',
  amount_centavos: 4_200,
  fee_centavos: 42,
});
/** The services that consume `payment.confirmed.v1`, as the one declaration says. */
const consumers = serviceNames.filter((service) => eventSubscriptions[service].includes(paymentConfirmed));
const heldBeforeStart = new Map<string, number | undefined>();

/**
 * On a broker prefix where no ledger ever ran: the payment service (a process of its own) connects and publishes a
 * confirmed payment, and is gone; then the ledger starts for the first time.
 */
async function paymentPublishesFirst(env: IsolatedEnvironment): Promise<void> {
  // As the payment service's runtime connects: declaring the whole topology of the stack.
  const publisher = await Broker.connect({
    urls: [env.config.AMQP_URL],
    prefix: env.config.AMQP_PREFIX,
    connectionName: 'early-payment-service',
    logger: testLogger('early-payment-service'),
    wholeTopology: true,
  });
  await publisher.publish(paymentConfirmed, payment);
  await publisher.close();
  const names = new TopologyNames(env.config.AMQP_PREFIX);
  for (const service of consumers)
    heldBeforeStart.set(service, await messagesWaitingIn(names.eventQueue(service)));
}

describe('an event published before its consumer ever started', () => {
  const bed = ledgerServiceForTheseTests('ledger-early-publish', {}, paymentPublishesFirst);

  test('waits in the queue of every service that consumes it, and the ledger posts it once it starts', async () => {
    expect(consumers).toEqual(expect.arrayContaining(['ledger', 'checkout', 'webhook-dispatcher']));
    expect(Object.fromEntries(heldBeforeStart)).toEqual(Object.fromEntries(consumers.map((s) => [s, 1])));

    const balance = await waitFor(
      async () => {
        const reply = await bed.request(getBalance, { business_id: businessId });
        return reply.ok && reply.result.available_centavos === 4_158 ? reply.result : undefined;
      },
      { what: 'the payment confirmed before the ledger started, posted' },
    );
    expect(balance).toMatchObject({ available_centavos: 4_158, pending_centavos: 0 });
  });
});
