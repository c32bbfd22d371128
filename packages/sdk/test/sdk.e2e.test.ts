import {
  startStackWithWebhookReceiver,
  waitFor,
  type ReceivedDelivery,
  type RunningStack,
  type StackClient,
  type WebhookReceiver,
} from '@gateway/testkit';
import {
  Gateway,
  type GatewayError,
  isGatewayError,
  verifyWebhook,
  type Payment,
  type Refund,
  type WebhookEvent,
} from '../src';

/** Every route of the SDK against the whole stack as processes, as a merchant's code would call them. */
describe('the SDK against the whole stack', () => {
  let stack: RunningStack;
  let receiver: WebhookReceiver;
  let client: StackClient;
  let stopAll: () => Promise<void>;
  let receiverUrl: string;
  let gateway: Gateway;
  let businessId: string;
  let productId: string;
  let webhookId: string;
  let webhookSecret: string;

  const verified = (delivery: ReceivedDelivery, secret: string | string[]): WebhookEvent | undefined => {
    try {
      return verifyWebhook(delivery.body, delivery.headers, secret);
    } catch {
      return undefined;
    }
  };

  /** The events of one type about one resource among the deliveries that verify with the given secret(s). */
  const verifiedDeliveries = (secret: string | string[], type: string, resourceId: string) =>
    receiver.deliveries
      .map((delivery) => verified(delivery, secret))
      .filter((event) => event?.type === type && Object.values(event.data).includes(resourceId));

  const delivered = (secret: string | string[], type: string, resourceId: string): Promise<WebhookEvent> =>
    waitFor(() => verifiedDeliveries(secret, type, resourceId)[0], {
      timeoutMs: 30_000,
      intervalMs: 100,
      what: `the ${type} webhook of ${resourceId}`,
    });

  const paymentIn = (paymentId: string, status: Payment['status']) =>
    waitFor(
      async () => {
        const payment = await gateway.payments.get(paymentId);
        return payment.status === status && payment;
      },
      { timeoutMs: 30_000, intervalMs: 200, what: `payment ${paymentId} ${status}` },
    );

  const settled = (refundId: string) =>
    waitFor(
      async () => {
        const refund = await gateway.refunds.get(refundId);
        return refund.status !== 'pending' && refund;
      },
      { timeoutMs: 30_000, intervalMs: 200, what: `refund ${refundId} settled` },
    );

  beforeAll(async () => {
    ({ stack, receiver, client, stopAll } = await startStackWithWebhookReceiver());
    receiverUrl = receiver.url('/hooks');
    const fee = { percent_bps: 100, fixed_centavos: 0 };
    const business = await client.createBusiness('Livraria Paulista', { pix: fee, crypto: fee });
    businessId = business.businessId;
    productId = (
      await client.admin('POST', `/admin/v1/businesses/${businessId}/products`, {
        name: 'Livro',
        price: 5990,
      })
    ).product_id;
    gateway = new Gateway({ apiKey: business.apiKey, baseUrl: stack.gatewayUrl });
    const webhook = await gateway.webhooks.create({
      url: receiverUrl,
      events: [
        'payment.created',
        'payment.confirmed',
        'payment.cancelled',
        'refund.succeeded',
        'refund.failed',
      ],
    });
    webhookId = webhook.webhook_id;
    webhookSecret = webhook.secret;
  }, 150_000);

  afterAll(() => stopAll?.());

  test('a PIX payment is created, changed, paid in the sandbox, partly refunded and announced by verified webhooks', async () => {
    const created = await gateway.payments.create({ payment_method: 'pix', amount: 12345, currency: 'brl' });
    if (!('pix' in created)) throw new Error('a PIX payment came back without its pix details');
    expect(created).toMatchObject({ status: 'processing', amount: 123.45, fee_brl: 1.23, customer_id: null });
    expect(created.pix.copia_e_cola).toMatch(/^000201/);
    const paymentId = created.payment_id;

    const updated = await gateway.payments.update(paymentId, { amount: 20000, metadata: '{"order":"1001"}' });
    expect(updated).toMatchObject({
      amount: 200,
      status: 'processing',
      pix: { qr_code: expect.any(String) },
    });

    expect(await gateway.sandbox.simulate(paymentId, { outcome: 'paid' })).toEqual({ accepted: true });
    const paid = await paymentIn(paymentId, 'paid');
    expect(paid).toMatchObject({
      method: 'pix',
      amount_brl: 200,
      transaction_id: expect.stringMatching(/^E/),
    });
    expect((await delivered(webhookSecret, 'payment.confirmed', paymentId)).data).toMatchObject({
      payment_id: paymentId,
      status: 'paid',
    });

    const refund = await gateway.refunds.create(paymentId, { amount: 5000, reason: 'produto devolvido' });
    expect(refund).toMatchObject({ payment_id: paymentId, amount_brl: 50, status: 'pending' });
    expect(await settled(refund.refund_id)).toMatchObject({
      status: 'succeeded',
      external_id: expect.any(String),
    });
    const refunds: Refund[] = [];
    for await (const each of gateway.refunds.list(paymentId)) refunds.push(each);
    expect(refunds.map((each) => each.refund_id)).toEqual([refund.refund_id]);
    expect((await gateway.payments.get(paymentId)).refunded_amount_brl).toBe(50);
    expect((await delivered(webhookSecret, 'refund.succeeded', refund.refund_id)).data).toMatchObject({
      refund_id: refund.refund_id,
      status: 'succeeded',
    });
    expect(await gateway.payments.receivedFunds(paymentId)).toEqual({ data: [], has_more: false });

    const [confirmed] = (await gateway.events.list({ type: 'payment.confirmed', limit: 100 })).data.filter(
      (event) => 'payment_id' in event.data && event.data.payment_id === paymentId,
    );
    expect(confirmed).toBeDefined();
    expect(await gateway.events.get(confirmed!.id)).toEqual(confirmed);
  });

  test('a crypto payment is cancelled once; the second cancel is INVALID_STATUS naming the status', async () => {
    const created = await gateway.payments.create({
      payment_method: 'crypto',
      amount: 10000,
      crypto: { currency: 'usdc', network: 'solana' },
    });
    if (!('crypto' in created)) throw new Error('a crypto payment came back without its crypto details');
    expect(created).toMatchObject({ status: 'pending', payment_method: 'crypto' });
    expect(created.crypto).toMatchObject({ currency: 'USDC', network: 'solana' });
    expect(created.crypto.payment_link).toMatch(/^solana:/);

    expect(await gateway.payments.cancel(created.payment_id)).toMatchObject({ status: 'cancelled' });
    await delivered(webhookSecret, 'payment.cancelled', created.payment_id);
    const again = await gateway.payments.cancel(created.payment_id).catch((err: unknown) => err);
    expect(isGatewayError(again, 'INVALID_STATUS')).toBe(true);
    expect((again as GatewayError).status).toBe(422);
    expect((again as GatewayError).message).toContain('cancelled');
  });

  test('payments are listed with filters and iterated page by page across the whole list', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1)
      ids.unshift((await gateway.payments.create({ payment_method: 'pix', amount: 1000 + i })).payment_id);
    const firstPage = await gateway.payments.list({ limit: 2, method: 'pix', status: 'processing' });
    expect(firstPage.data.map((payment) => payment.payment_id)).toEqual(ids.slice(0, 2));
    expect(firstPage.has_more).toBe(true);

    const iterated: string[] = [];
    for await (const payment of gateway.payments.list({ limit: 2, method: 'pix' }))
      iterated.push(payment.payment_id);
    expect(iterated.slice(0, 3)).toEqual(ids);
    const all = await gateway.payments.list({ limit: 100 });
    expect(iterated).toHaveLength(all.data.filter((payment) => payment.method === 'pix').length);
  });

  test('customers and checkouts are created, read, listed, and a checkout pages its sessions', async () => {
    const customer = await gateway.customers.create({
      email: 'maria@example.com',
      phone_number: '(11) 91234-5678',
      document_number: '529.982.247-25',
    });
    expect(customer).toMatchObject({ phone_number: '+5511912345678', document_number: '52998224725' });
    expect(await gateway.customers.get(customer.customer_id)).toEqual(customer);
    expect((await gateway.customers.list()).data).toContainEqual(customer);
    const named = await gateway.payments.create({
      payment_method: 'pix',
      amount: 4200,
      customer_id: customer.customer_id,
    });
    expect(named.customer_id).toBe(customer.customer_id);

    const checkout = await gateway.checkouts.create({
      product_id: productId,
      return_url: 'https://loja.example/obrigado',
      cancel_url: 'https://loja.example/carrinho',
      title: 'Livro de receitas',
    });
    expect(checkout).toMatchObject({ status: 'active', url: expect.stringContaining(`/c/${checkout.slug}`) });
    expect(await gateway.checkouts.get(checkout.checkout_id)).toEqual({
      ...checkout,
      sessions: [],
      sessions_has_more: false,
    });
    expect((await gateway.checkouts.list({ limit: 1 })).data).toEqual([checkout]);
    expect(await gateway.checkouts.sessions(checkout.checkout_id)).toEqual({ data: [], has_more: false });
  });

  test('webhooks are read, tested, redelivered, rotated (both secrets verify meanwhile) and deleted', async () => {
    expect(await gateway.webhooks.get(webhookId)).toMatchObject({ webhook_id: webhookId, url: receiverUrl });
    expect((await gateway.webhooks.list()).data.map((webhook) => webhook.webhook_id)).toContain(webhookId);

    const tested = await gateway.webhooks.test(webhookId);
    expect(tested).toMatchObject({ status_code: 204, error: null });
    expect(verifiedDeliveries(webhookSecret, 'webhook.test', webhookId)).toHaveLength(1);

    // The newest delivery belongs to the previous test's payment, and may still be on its way: wait until it is sent.
    const first = await waitFor(
      async () => {
        const [newest] = (await gateway.webhooks.deliveries(webhookId, { limit: 100 })).data;
        return newest?.status === 'pending' ? undefined : newest;
      },
      { timeoutMs: 20_000, what: 'the newest delivery sent' },
    );
    expect(first).toMatchObject({
      status: 'delivered',
      attempts: [expect.objectContaining({ status_code: 204 })],
    });
    const before = receiver.deliveries.length;
    expect(await gateway.webhooks.retryDelivery(webhookId, first!.delivery_id)).toMatchObject({
      delivery_id: first!.delivery_id,
    });
    await waitFor(() => receiver.deliveries.length > before, { timeoutMs: 20_000, what: 'the redelivery' });

    const { secret: rotated } = await gateway.webhooks.rotateSecret(webhookId);
    expect(rotated).toMatch(/^whsec_/);
    const created = await gateway.payments.create({ payment_method: 'pix', amount: 777 });
    const withOld = await delivered(webhookSecret, 'payment.created', created.payment_id);
    expect(verifiedDeliveries(rotated, 'payment.created', created.payment_id)).toEqual([withOld]);

    // Every delivery the dispatcher made, before the rotation and during its overlap, verifies with the first secret.
    expect(receiver.deliveries.filter((delivery) => !verified(delivery, webhookSecret))).toEqual([]);

    expect(await gateway.webhooks.delete(webhookId)).toEqual({ deleted: true });
    const gone = await gateway.webhooks.get(webhookId).catch((err: unknown) => err);
    expect(isGatewayError(gone, 'NOT_FOUND')).toBe(true);
  });

  test('errors carry their contract code; a reused Idempotency-Key answers the first payment or a conflict', async () => {
    const missing = await gateway.payments.get('pay_000000000000000000000000').catch((err: unknown) => err);
    expect(missing).toMatchObject({ code: 'NOT_FOUND', status: 404, requestId: expect.any(String) });
    const tooSmall = await gateway.payments
      .create({ payment_method: 'pix', amount: 99 })
      .catch((err: unknown) => err);
    expect(tooSmall).toMatchObject({ code: 'INVALID_AMOUNT', status: 422 });
    const badKey = new Gateway({ apiKey: 'sk_test_unknown', baseUrl: stack.gatewayUrl });
    expect(await badKey.events.list().then(undefined, (err: unknown) => err)).toMatchObject({
      code: 'UNAUTHORIZED',
      status: 401,
    });

    const key = `order-${Date.now()}`;
    const first = await gateway.payments.create(
      { payment_method: 'pix', amount: 2500 },
      { idempotencyKey: key },
    );
    const replayed = await gateway.payments.create(
      { payment_method: 'pix', amount: 2500 },
      { idempotencyKey: key },
    );
    expect(replayed.payment_id).toBe(first.payment_id);
    const conflict = await gateway.payments
      .create({ payment_method: 'pix', amount: 2600 }, { idempotencyKey: key })
      .catch((err: unknown) => err);
    expect(isGatewayError(conflict, 'IDEMPOTENCY_CONFLICT')).toBe(true);
    expect(conflict).toMatchObject({ status: 409, idempotencyKey: key });
  });

  test('payouts go to the account the operator registered: created, read and listed, refused without one', async () => {
    const refused = await gateway.payouts.create({ amount: 100 }).catch((err: unknown) => err);
    expect(isGatewayError(refused, 'NO_PAYOUT_ACCOUNT')).toBe(true);
    await client.admin('PUT', `/admin/v1/businesses/${businessId}/payout-account`, {
      pix_key: 'financeiro@livraria.com.br',
      pix_key_type: 'email',
      holder_document: '12345678000195',
    });
    const payment = await gateway.payments.create({ payment_method: 'pix', amount: 10000 });
    await gateway.sandbox.simulate(payment.payment_id, { outcome: 'paid' });
    await waitFor(async () => (await gateway.balance.get()).available_brl >= 10 || undefined, {
      timeoutMs: 30_000,
      intervalMs: 200,
      what: 'money available to pay out',
    });
    const payout = await gateway.payouts.create({ amount: 1000 });
    expect(payout).toMatchObject({
      amount_brl: 10,
      status: 'pending',
      destination: { pix_key_masked: 'f***@livraria.com.br' },
    });
    expect(await gateway.payouts.get(payout.payout_id)).toMatchObject({ payout_id: payout.payout_id });
    const listed: string[] = [];
    for await (const each of gateway.payouts.list()) listed.push(each.payout_id);
    expect(listed).toEqual([payout.payout_id]);
    const tooMuch = await gateway.payouts.create({ amount: 999_999_999_999 }).catch((err: unknown) => err);
    expect(isGatewayError(tooMuch, 'INSUFFICIENT_BALANCE')).toBe(true);
  });
});
