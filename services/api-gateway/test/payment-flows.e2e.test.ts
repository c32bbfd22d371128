import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createTestPki, startStack, waitFor, type RunningStack, type TestPki } from '@gateway/testkit';

interface ReceivedWebhook {
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** The whole stack as processes, driven only through the public HTTP API, as a merchant would. */
describe('payments end to end through the public API', () => {
  let stack: RunningStack;
  let pki: TestPki;
  let receiver: Server;
  let receiverUrl: string;
  const received: ReceivedWebhook[] = [];
  let apiKey: string;
  let webhookSecret: string;

  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${stack.gatewayUrl}${path}`, {
      method,
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };

  const admin = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${stack.gatewayUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${stack.adminToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(response.status).toBeLessThan(300);
    return (await response.json()) as Record<string, any>;
  };

  const eventsFor = (paymentId: string) =>
    received
      .map((r) => ({ ...r, json: JSON.parse(r.body) }))
      .filter((r) => r.json.data?.payment_id === paymentId);

  const paidPayment = (paymentId: string) =>
    waitFor(
      async () => {
        const { body } = await api('GET', `/v1/payments/${paymentId}`);
        return body.status === 'paid' ? body : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250, what: `payment ${paymentId} to be paid` },
    );

  beforeAll(async () => {
    pki = createTestPki();
    receiver = createServer({ key: pki.server.key, cert: pki.server.cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `https://localhost:${(receiver.address() as AddressInfo).port}/hooks`;
    stack = await startStack({ NODE_EXTRA_CA_CERTS: pki.caPath });

    const business = await admin('POST', '/admin/v1/businesses', { name: 'Padaria São João' });
    apiKey = business.api_key;
    await admin('PUT', `/admin/v1/businesses/${business.business_id}/fee-rules/pix`, {
      percent_bps: 99,
      fixed_centavos: 0,
    });
    await admin('PUT', `/admin/v1/businesses/${business.business_id}/fee-rules/crypto`, {
      percent_bps: 150,
      fixed_centavos: 10,
    });
    const webhook = await api('POST', '/v1/webhook', {
      url: receiverUrl,
      events: ['payment.created', 'payment.confirmed', 'payment.expired', 'payment.failed'],
    });
    expect(webhook.status).toBe(201);
    webhookSecret = webhook.body.secret;
  }, 150_000);

  afterAll(async () => {
    if (process.env.E2E_LOGS) console.log(stack?.logs.join(''));
    await stack?.stop();
    await new Promise((resolve) => receiver?.close(resolve));
    pki?.remove();
  });

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

    const other = await admin('POST', '/admin/v1/businesses', { name: 'Outra Loja' });
    const foreign = await fetch(`${stack.gatewayUrl}/v1/payments`, {
      method: 'POST',
      headers: { 'x-api-key': other.api_key, 'content-type': 'application/json' },
      body: JSON.stringify({ payment_method: 'pix', amount: 4200, customer_id: customer.body.customer_id }),
    });
    expect(foreign.status).toBe(404);
    expect(((await foreign.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
  });

  test('a PIX payment is created with a BR Code, paid at the PSP, confirmed by GET and announced by signed webhooks', async () => {
    const created = await api('POST', '/v1/payments', {
      payment_method: 'pix',
      amount: 12345,
      currency: 'brl',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      status: 'processing',
      amount: 123.45,
      fee_brl: 1.22,
      net_amount_brl: 122.23,
      pix: {
        qr_code: expect.stringMatching(/^data:image\/png;base64,/),
        copia_e_cola: expect.stringMatching(/^000201/),
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
        return found.some((d) => d.json.type === 'payment.confirmed') ? found : undefined;
      },
      { timeoutMs: 20_000, what: 'the payment.confirmed webhook' },
    );
    for (const delivery of deliveries) {
      const expected = createHmac('sha256', webhookSecret).update(delivery.body).digest('hex');
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
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      status: 'pending',
      payment_method: 'crypto',
      crypto: {
        currency: 'USDC',
        network: 'solana',
        payment_link: expect.stringMatching(/^solana:/),
        qr_code: expect.stringMatching(/^data:image\/png;base64,/),
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
