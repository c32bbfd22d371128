import {
  createProduct,
  dateOfDay,
  getCheckoutPage,
  newPublicId,
  paymentConfirmed,
  saoPauloDay,
  type Checkout,
} from '@gateway/contracts';
import { waitFor } from '@gateway/testkit';
import {
  checkoutWithPaymentsForTheseTests,
  createTestCheckout,
  createTestProduct,
  productCommand,
  subscriptionStartCommand,
} from './support/checkout-service';

describe('recurring products: a checkout session starts a subscription (Pix Automático, journey 3)', () => {
  const bed = checkoutWithPaymentsForTheseTests('checkout-subscription');

  const recurringCheckout = async (): Promise<Checkout> =>
    createTestCheckout(bed, await createTestProduct(bed, { interval: 'monthly', price_centavos: 4990 }));

  const sessionsOf = async (
    checkoutId: string,
  ): Promise<Array<{ id: string; payment_id: string; subscription_id: string | null; status: string }>> =>
    bed.service.dataSource.query(
      'SELECT id, payment_id, subscription_id, status FROM sessions WHERE checkout_id = $1',
      [checkoutId],
    );

  test('a product keeps its interval, and a one-off product has none', async () => {
    const recurring = await bed.request(createProduct, productCommand({ interval: 'yearly' }));
    const oneOff = await bed.request(createProduct, productCommand());

    expect(recurring).toEqual({ ok: true, result: expect.objectContaining({ interval: 'yearly' }) });
    expect(oneOff).toEqual({ ok: true, result: expect.objectContaining({ interval: null }) });
  });

  test('the products table refuses an interval that is not a subscription interval', async () => {
    const product = await createTestProduct(bed);

    await expect(
      bed.service.dataSource.query(`UPDATE products SET "interval" = 'daily' WHERE id = $1`, [
        product.product_id,
      ]),
    ).rejects.toThrow(/check constraint/);
  });

  test("the hosted page's data says the product is recurring", async () => {
    const checkout = await recurringCheckout();

    expect(await bed.request(getCheckoutPage, { slug: checkout.slug })).toEqual({
      ok: true,
      result: expect.objectContaining({ interval: 'monthly', price_centavos: 4990 }),
    });
  });

  test('a start creates a customer from the buyer, asks for a journey-3 subscription of the price from today, and records both ids', async () => {
    const checkout = await recurringCheckout();
    const reply = await bed.startSession(subscriptionStartCommand(checkout));

    if (!reply.ok) throw new Error(`not started: ${reply.error.code}`);
    const metadata = JSON.stringify({ checkout_id: checkout.checkout_id, product_id: checkout.product_id });
    expect(bed.customers.requestsFor(checkout.business_id)).toEqual([
      {
        business_id: checkout.business_id,
        name: 'Maria da Silva',
        email: null,
        phone_number: null,
        document_number: '529.982.247-25',
        ip: null,
        metadata,
      },
    ]);
    const [subscription] = bed.payments.subscriptionRequestsFor(checkout.business_id);
    expect(subscription).toEqual({
      business_id: checkout.business_id,
      business_name: 'Estúdio Som',
      customer_id: expect.stringMatching(/^cust_/),
      debtor: { name: 'Maria da Silva', document: '52998224725' },
      amount_centavos: 4990,
      minimum_amount_centavos: null,
      interval: 'monthly',
      start_date: dateOfDay(saoPauloDay(new Date())),
      end_date: null,
      description: 'Curso de Violão',
      retry_policy: 'none',
      journey: 'qr_with_first_payment',
      payer_account: null,
      metadata,
    });
    expect(reply.result).toEqual({
      session_id: expect.stringMatching(/^sess_/),
      status: 'initiated',
      subscription_id: expect.stringMatching(/^sub_/),
      payment: expect.objectContaining({
        payment: expect.objectContaining({ amount_centavos: 4990 }),
        pix: expect.objectContaining({ copia_e_cola: expect.any(String) }),
      }),
    });
    expect(bed.payments.requestsFor(checkout.business_id)).toEqual([]);
    expect(await sessionsOf(checkout.checkout_id)).toEqual([
      {
        id: reply.result.session_id,
        payment_id: reply.result.payment.payment.payment_id,
        subscription_id: reply.result.subscription_id,
        status: 'initiated',
      },
    ]);
  });

  test('the session is paid when its first cycle is confirmed (payment.confirmed)', async () => {
    const checkout = await recurringCheckout();
    const reply = await bed.startSession(subscriptionStartCommand(checkout));
    if (!reply.ok) throw new Error(`not started: ${reply.error.code}`);
    const { payment } = reply.result.payment;

    await bed.client.publish(paymentConfirmed, {
      event_id: newPublicId('evt'),
      business_id: payment.business_id,
      occurred_at: new Date().toISOString(),
      payment: { ...payment, status: 'paid', updated_at: new Date().toISOString() },
    });

    await waitFor(
      async () => ((await sessionsOf(checkout.checkout_id))[0]?.status === 'paid' ? true : undefined),
      { what: 'the subscription session to be paid' },
    );
  });

  test('when the same start is delivered twice, one customer, one subscription and one session come of it', async () => {
    const checkout = await recurringCheckout();
    const messageId = newPublicId('cmd');
    const first = await bed.startSession(subscriptionStartCommand(checkout), messageId);
    const second = await bed.startSession(subscriptionStartCommand(checkout), messageId);

    expect(first.ok).toBe(true);
    expect(second).toEqual(first);
    const customerIds = [...bed.customers.requests.entries()].filter(([, requests]) =>
      requests.some((request) => request.business_id === checkout.business_id),
    );
    expect(customerIds).toHaveLength(1);
    const subscriptionIds = [...bed.payments.subscriptionRequests.entries()].filter(([, requests]) =>
      requests.some((request) => request.business_id === checkout.business_id),
    );
    expect(subscriptionIds).toHaveLength(1);
    expect(await sessionsOf(checkout.checkout_id)).toHaveLength(1);
  });

  test('crypto is not offered for a recurring product: UNSUPPORTED_PAYMENT_METHOD, and nothing is created', async () => {
    const checkout = await recurringCheckout();
    const reply = await bed.startSession(
      subscriptionStartCommand(checkout, { method: 'crypto', token: 'usdc' }),
    );

    expect(reply).toEqual({
      ok: false,
      error: { code: 'UNSUPPORTED_PAYMENT_METHOD', message: expect.any(String) },
    });
    expect(bed.customers.requestsFor(checkout.business_id)).toEqual([]);
    expect(bed.payments.requestsFor(checkout.business_id)).toEqual([]);
  });

  test('without the buyer it is MISSING_FIELDS; a document that cannot be a CPF is INVALID_FIELDS; nothing is created', async () => {
    const checkout = await recurringCheckout();
    const missing = await bed.startSession(subscriptionStartCommand(checkout, { buyer: null }));
    const notACpf = await bed.startSession(
      subscriptionStartCommand(checkout, { buyer: { name: 'Maria', document: '11222333000181' } }),
    );

    expect(missing).toEqual({ ok: false, error: { code: 'MISSING_FIELDS', message: expect.any(String) } });
    expect(notACpf).toEqual({
      ok: false,
      error: { code: 'INVALID_FIELDS', message: 'Campos inválidos: document.' },
    });
    expect(bed.customers.requestsFor(checkout.business_id)).toEqual([]);
    expect(bed.payments.subscriptionRequestsFor(checkout.business_id)).toEqual([]);
  });

  test('a CPF the customer service refuses comes back as its INVALID_FIELDS; no subscription, no session', async () => {
    const checkout = await recurringCheckout();
    bed.customers.refuseDocument('111.111.111-12');
    const reply = await bed.startSession(
      subscriptionStartCommand(checkout, { buyer: { name: 'Maria', document: '111.111.111-12' } }),
    );

    expect(reply).toEqual({ ok: false, error: { code: 'INVALID_FIELDS', message: expect.any(String) } });
    expect(bed.payments.subscriptionRequestsFor(checkout.business_id)).toEqual([]);
    expect(await sessionsOf(checkout.checkout_id)).toEqual([]);
  });

  test('a one-off product ignores a buyer and asks for a payment as before', async () => {
    const checkout = await bed.newCheckout();
    const reply = await bed.startSession(subscriptionStartCommand(checkout));

    expect(reply).toEqual({
      ok: true,
      result: expect.not.objectContaining({ subscription_id: expect.anything() }),
    });
    expect(bed.payments.requestsFor(checkout.business_id)).toHaveLength(1);
    expect(bed.customers.requestsFor(checkout.business_id)).toEqual([]);
  });
});
