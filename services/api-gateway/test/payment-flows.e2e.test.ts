import { createHmac } from 'node:crypto';
import { stackWithMerchantForTheseTests, waitFor } from '@gateway/testkit';

/** The whole stack as processes, driven only through the public HTTP API, as a merchant would. */
describe('payments end to end through the public API', () => {
  const live = stackWithMerchantForTheseTests({
    name: 'Padaria São João',
    feeRules: {
      pix: { percent_bps: 99, fixed_centavos: 0 },
      crypto: { percent_bps: 150, fixed_centavos: 10 },
    },
    webhookEvents: ['payment.created', 'payment.confirmed', 'payment.expired', 'payment.failed'],
  });

  const api = (method: string, path: string, body?: unknown) =>
    live.client.api(live.apiKey, method, path, body);

  const eventsFor = (paymentId: string) =>
    live.receiver.deliveries
      .map((r) => ({ ...r, json: JSON.parse(r.body) }))
      .filter((r) => r.json.data?.payment_id === paymentId);

  const paidPayment = (paymentId: string) => live.client.paymentIn(live.apiKey, paymentId, 'paid');

  test("a payment names one of the business's customers, is found in the list by it, and another business cannot name it", async () => {
    const customer = await api('POST', '/v1/customers', { email: 'ana@example.com' });
    expect(customer.status).toBe(201);
    const created = await api('POST', '/v1/payments', {
      payment_method: 'pix',
      amount: 4200,
      customer_id: customer.body.customer_id,
    });
    expect({ status: created.status, customer: created.body.customer_id }).toEqual({
      status: 201,
      customer: customer.body.customer_id,
    });
    const read = await api('GET', `/v1/payments/${created.body.payment_id}`);
    expect(read.body.customer_id).toBe(customer.body.customer_id);
    expect((await api('GET', `/v1/customers/${customer.body.customer_id}`)).body).toEqual(customer.body);
    const listed = await api('GET', '/v1/payments?limit=1');
    expect(listed.body.data.map((p: { payment_id: string }) => p.payment_id)).toEqual([
      created.body.payment_id,
    ]);

    const other = await live.client.createBusiness('Outra Loja');
    const foreign = await live.client.api(other.apiKey, 'POST', '/v1/payments', {
      payment_method: 'pix',
      amount: 4200,
      customer_id: customer.body.customer_id,
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('NOT_FOUND');
  });

  test('a PIX payment is created with a BR Code, paid at the PSP, confirmed by GET and announced by signed webhooks', async () => {
    const created = await api('POST', '/v1/payments', {
      payment_method: 'pix',
      amount: 12345,
      currency: 'brl',
    });
    expect(created).toMatchObject({
      status: 201,
      body: {
        status: 'processing',
        amount: 123.45,
        fee_brl: 1.22,
        net_amount_brl: 122.23,
        pix: {
          qr_code: expect.stringMatching(/^data:image\/png;base64,/),
          copia_e_cola: expect.stringMatching(/^000201/),
        },
      },
    });
    const paymentId: string = created.body.payment_id;

    const simulated = await api('POST', `/v1/sandbox/payments/${paymentId}/simulate`, { outcome: 'paid' });
    expect(simulated.status).toBe(202);
    const paid = await paidPayment(paymentId);
    expect(paid).toMatchObject({
      method: 'pix',
      amount_brl: 123.45,
      transaction_id: expect.stringMatching(/^E/),
    });

    const deliveries = await waitFor(
      () => {
        const found = eventsFor(paymentId);
        // Two deliveries, independent of each other: either may be retried and arrive last.
        const types = new Set(found.map((d) => d.json.type));
        return types.has('payment.created') && types.has('payment.confirmed') ? found : undefined;
      },
      { timeoutMs: 20_000, what: 'the payment.created and payment.confirmed webhooks' },
    );
    for (const delivery of deliveries) {
      const expected = createHmac('sha256', live.webhookSecret).update(delivery.body).digest('hex');
      expect(delivery.headers['x-service-signature']).toBe(expected);
      expect(delivery.headers['webhook-id']).toBe(delivery.json.id);
    }
    expect(deliveries.map((d) => d.json.type)).toEqual(
      expect.arrayContaining(['payment.created', 'payment.confirmed']),
    );
    const confirmed = deliveries.find((d) => d.json.type === 'payment.confirmed')!;
    expect(confirmed.json.data).toMatchObject({ payment_id: paymentId, status: 'paid', amount_brl: 123.45 });
  }, 60_000);

  test('a USDC payment gets a Solana Pay link, is paid on the local chain and becomes paid with the signature', async () => {
    const created = await api('POST', '/v1/payments', {
      payment_method: 'crypto',
      amount: 10000,
      crypto: { currency: 'usdc', network: 'solana' },
    });
    expect(created).toMatchObject({
      status: 201,
      body: {
        status: 'pending',
        payment_method: 'crypto',
        crypto: {
          currency: 'USDC',
          network: 'solana',
          payment_link: expect.stringMatching(/^solana:/),
          qr_code: expect.stringMatching(/^data:image\/png;base64,/),
        },
      },
    });
    const paymentId: string = created.body.payment_id;
    const reference = new URL(created.body.crypto.payment_link).searchParams.get('reference');

    const simulated = await api('POST', `/v1/sandbox/payments/${paymentId}/simulate`, { outcome: 'paid' });
    expect(simulated.status).toBe(202);
    const paid = await paidPayment(paymentId);
    expect(paid).toMatchObject({
      method: 'crypto',
      external_id: reference,
      transaction_id: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/),
    });
  }, 60_000);
});
