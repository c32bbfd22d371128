import {
  createCustomer,
  eventSubscriptions,
  getPayment,
  paymentCancelled,
  paymentConfirmed,
  paymentCreated,
  paymentExpired,
  paymentFailed,
  type Customer,
  type ServiceName,
} from '@gateway/contracts';
import { ServiceHandlers } from '../src/handlers';
import type { HandlerTable } from '../src/consumer';

/** What the broker was asked to consume, by queue. */
function consumedBy(service: ServiceName, exactSubscriptions = false) {
  const consumed: { commands?: string[]; events?: { bindings: string[]; handled: string[] } } = {};
  const handlers = new ServiceHandlers(service, exactSubscriptions, {
    async consumeCommands(_owner, table: HandlerTable) {
      consumed.commands = [...table.keys()];
    },
    async consumeEvents(_owner, bindings, table: HandlerTable) {
      consumed.events = { bindings: [...bindings], handled: [...table.keys()] };
    },
  });
  return { handlers, consumed };
}

const aCustomer = (): Customer => ({
  customer_id: 'cust_1',
  business_id: 'biz_1',
  name: null,
  email: null,
  phone_number: null,
  document_number: null,
  ip: null,
  metadata: null,
  created_at: new Date(0).toISOString(),
});

describe('a service registers each message it handles once, with its definition', () => {
  it('binds its events queue to the events it handles, and consumes a queue only when it has handlers for it', async () => {
    const { handlers, consumed } = consumedBy('checkout');
    await handlers
      .handle(paymentConfirmed, async () => undefined)
      .handle(paymentCreated, async () => undefined, { bind: false })
      .consume();
    expect(consumed).toEqual({
      events: { bindings: ['payment.confirmed.v1'], handled: ['payment.confirmed.v1', 'payment.created.v1'] },
    });
  });

  it('consumes its commands queue with the commands it handles', async () => {
    const { handlers, consumed } = consumedBy('customer');
    await handlers.handle(createCustomer, async () => aCustomer()).consume();
    expect(consumed).toEqual({ commands: ['customer.create.v1'] });
  });

  it('refuses a command another service handles, a second handler for one message, and a registration after consume', async () => {
    const { handlers } = consumedBy('customer');
    expect(() => handlers.handle(getPayment, async () => Promise.reject(new Error('unused')))).toThrow(
      'payment.get.v1 is handled by payment, not customer',
    );
    handlers.handle(createCustomer, async () => aCustomer());
    expect(() => handlers.handle(createCustomer, async () => aCustomer())).toThrow('has a handler already');
    await handlers.consume();
    expect(() => handlers.handle(paymentConfirmed, async () => undefined)).toThrow('after consume()');
  });

  it('does not compile a handler that does not fit its message', () => {
    const fresh = (service: ServiceName) => consumedBy(service).handlers;
    // @ts-expect-error: a customer.create.v1 handler answers a Customer, not a string.
    fresh('customer').handle(createCustomer, async () => 'not a customer');
    // @ts-expect-error: a payment.confirmed.v1 payload has no `email`.
    fresh('checkout').handle(paymentConfirmed, async (event) => void event.email);
    // @ts-expect-error: an event's handler answers nothing.
    fresh('checkout').handle(paymentConfirmed, async () => aCustomer());
  });
});

describe('a service (exactSubscriptions) handles exactly the events its eventSubscriptions declare', () => {
  const checkoutEvents = [paymentConfirmed, paymentExpired, paymentFailed, paymentCancelled];

  it('starts when its bound handlers are its declared events (an unbound handler aside)', async () => {
    expect(eventSubscriptions.checkout).toEqual(checkoutEvents);
    const { handlers, consumed } = consumedBy('checkout', true);
    for (const event of checkoutEvents) handlers.handle(event, async () => undefined);
    await handlers.handle(paymentCreated, async () => undefined, { bind: false }).consume();
    expect(consumed.events?.bindings).toEqual(checkoutEvents.map((event) => event.name));
  });

  it('refuses to start with a declared event it has no handler for, or a bound handler nobody declared', async () => {
    const missing = consumedBy('checkout', true);
    for (const event of checkoutEvents.slice(1)) missing.handlers.handle(event, async () => undefined);
    await expect(missing.handlers.consume()).rejects.toThrow(
      'checkout: its event handlers and its eventSubscriptions (@gateway/contracts) disagree: declared without a handler: payment.confirmed.v1;',
    );
    expect(missing.consumed).toEqual({});

    const extra = consumedBy('customer', true);
    await expect(extra.handlers.handle(paymentConfirmed, async () => undefined).consume()).rejects.toThrow(
      'handled but not declared: payment.confirmed.v1;',
    );
  });
});
