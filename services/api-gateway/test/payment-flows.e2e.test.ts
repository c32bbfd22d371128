import { createHmac } from 'node:crypto';
import { cobAtPsp, stackWithMerchantForTheseTests, waitFor } from '@gateway/testkit';

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
    const customer = await api('POST', '/v1/customers', {
      name: 'Ana Paula Souza',
      email: 'ana@example.com',
      document_number: '529.982.247-25',
    });
    expect(customer.status).toBe(201);
    const created = await api('POST', '/v1/payments', {
      payment_method: 'pix',
      amount: 4200,
      customer_id: customer.body.customer_id,
      description: 'Pedido 1001: bolo de fubá',
    });
    expect({ status: created.status, customer: created.body.customer_id }).toEqual({
      status: 201,
      customer: customer.body.customer_id,
    });
    const read = await api('GET', `/v1/payments/${created.body.payment_id}`);
    expect(read.body).toMatchObject({
      customer_id: customer.body.customer_id,
      description: 'Pedido 1001: bolo de fubá',
    });
    // The charge at the PSP names the customer as its debtor and asks the payer's bank to show the description.
    expect(await cobAtPsp(live.stack.pspUrl, read.body.external_id)).toMatchObject({
      devedor: { cpf: '52998224725', nome: 'Ana Paula Souza' },
      solicitacaoPagador: 'Pedido 1001: bolo de fubá',
    });
    expect((await api('GET', `/v1/customers/${customer.body.customer_id}`)).body).toEqual(customer.body);
    const listed = await api('GET', '/v1/payments?limit=1');
    expect(listed.body.data.map((p: { payment_id: string }) => p.payment_id)).toEqual([
      created.body.payment_id,
    ]);
    // A customer without a document is no debtor: the charge is open to anyone, as before.
    const anonymous = await api('POST', '/v1/customers', { name: 'Sem Documento' });
    const plain = await api('POST', '/v1/payments', {
      payment_method: 'pix',
      amount: 4200,
      customer_id: anonymous.body.customer_id,
    });
    const plainRead = await api('GET', `/v1/payments/${plain.body.payment_id}`);
    expect(plainRead.body.description).toBeNull();
    expect(await cobAtPsp(live.stack.pspUrl, plainRead.body.external_id)).not.toHaveProperty('devedor');
    // The description is bounded as the payer's bank shows it: 140 characters.
    const tooLong = await api('POST', '/v1/payments', {
      payment_method: 'pix',
      amount: 4200,
      description: 'x'.repeat(141),
    });
    expect({ status: tooLong.status, code: tooLong.body.error.code }).toEqual({
      status: 422,
      code: 'INVALID_FIELDS',
    });

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
    const open = await api('GET', `/v1/payments/${paymentId}`);
    expect(open.body).toMatchObject({
      status: 'processing',
      fee_brl: 1.22,
      net_amount_brl: 122.23,
      expires_at: created.body.expires_at,
      pix: created.body.pix,
      payer: null,
    });

    const simulated = await api('POST', `/v1/sandbox/payments/${paymentId}/simulate`, { outcome: 'paid' });
    expect(simulated.status).toBe(202);
    const paid = await paidPayment(paymentId);
    expect(paid).toMatchObject({
      method: 'pix',
      amount_brl: 123.45,
      fee_brl: 1.22,
      net_amount_brl: 122.23,
      expires_at: created.body.expires_at,
      transaction_id: expect.stringMatching(/^E/),
      payer: { name: 'Fulana Pagadora de Tal', document_masked: '***.456.789-**' },
    });
    expect(paid).not.toHaveProperty('pix');
    const listed = await api('GET', '/v1/payments?limit=1');
    expect(listed.body.data[0]).toEqual(paid);

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
    expect(confirmed.json.data).toMatchObject({
      payment_id: paymentId,
      status: 'paid',
      amount_brl: 123.45,
      fee_brl: 1.22,
      net_amount_brl: 122.23,
      payer: paid.payer,
    });
    const createdEvent = deliveries.find((d) => d.json.type === 'payment.created')!;
    expect(createdEvent.json.data).toMatchObject({ fee_brl: 1.22, expires_at: created.body.expires_at });
    // Events carry the record, never the QR images.
    for (const delivery of deliveries) expect(delivery.json.data).not.toHaveProperty('pix');
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
    const open = await api('GET', `/v1/payments/${paymentId}`);
    expect(open.body).toMatchObject({
      status: 'pending',
      fee_brl: 1.6,
      net_amount_brl: 98.4,
      expires_at: created.body.crypto.expires_at,
      crypto: created.body.crypto,
      payer: null,
    });

    const simulated = await api('POST', `/v1/sandbox/payments/${paymentId}/simulate`, { outcome: 'paid' });
    expect(simulated.status).toBe(202);
    const paid = await paidPayment(paymentId);
    expect(paid).toMatchObject({
      method: 'crypto',
      external_id: reference,
      transaction_id: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/),
      fee_brl: 1.6,
      net_amount_brl: 98.4,
      expires_at: created.body.crypto.expires_at,
      payer: { address: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/) },
    });
    // The owner of the paying token account: the sandbox payer, never the receiving wallet.
    expect(paid.payer.address).not.toBe(created.body.crypto.wallet_address);
    expect(paid).not.toHaveProperty('crypto');
  }, 60_000);

  test('a business the operator has just created takes a payment at once, at the default fee rules', async () => {
    const fresh = await live.client.createBusiness('Loja Recém-Criada');
    for (const body of [
      { payment_method: 'pix', amount: 10000 },
      { payment_method: 'crypto', amount: 10000, crypto: { currency: 'usdc', network: 'solana' } },
    ]) {
      const created = await live.client.api(fresh.apiKey, 'POST', '/v1/payments', body);
      expect(created).toMatchObject({ status: 201, body: { fee_brl: 0.99, net_amount_brl: 99.01 } });
    }
  });
});
