import {
  createPayment,
  getCustomer,
  getPayment,
  newPublicId,
  simulatePayment,
  updatePayment,
  type CreatePayment,
  type GetCustomer,
  type UpdatePayment,
} from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import {
  aCryptoInstructions,
  aCryptoPaymentView,
  aPaymentRecord,
  aPixInstructions,
  aPixPaymentView,
} from '@gateway/testkit';
import type { CryptoInstructions } from '@gateway/contracts';

/** The public `crypto` object of instructions the payment service answered (token upper case, amount in the token). */
const aCryptoInstructionsAsAnswered = (crypto: CryptoInstructions) => ({
  currency: crypto.currency.toUpperCase(),
  network: crypto.network,
  qr_code: crypto.qr_code,
  payment_link: crypto.payment_link,
  wallet_address: crypto.wallet_address,
  amount: Number(crypto.amount_base_units) / 10 ** crypto.decimals,
  expires_at: crypto.expires_at,
});
import { aCustomer } from './support/builders';
import { harnessWithMerchantForTheseTests } from './support/harness';

describe('api gateway: payments', () => {
  const h = harnessWithMerchantForTheseTests('gw-pay', { merchant: 'Padaria Pão Quente' });

  const post = (body: unknown) =>
    h.http
      .post('/v1/payments')
      .set('x-api-key', h.merchant.api_key)
      .send(body as object);
  const patch = (body: object) =>
    h.http.patch('/v1/payments/pay_abcdefghijklmnopqrstuvwx').set('x-api-key', h.merchant.api_key).send(body);

  /** The payment service answers a create with a `view` of the asked amount, charging `fee_centavos`. */
  const answerCreateWith = (view: typeof aPixPaymentView, fee_centavos: number) =>
    h.fakes.on(createPayment, async (command) =>
      view({
        business_id: command.business_id,
        amount_centavos: command.amount_centavos,
        fee_centavos,
        customer_id: command.customer_id ?? null,
      }),
    );

  test('a PIX payment is created from centavos and answered in BRL with its QR code', async () => {
    answerCreateWith(aPixPaymentView, 199);
    const response = await post({
      payment_method: 'pix',
      amount: 12345,
      currency: 'brl',
      metadata: '{"a":1}',
    });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      payment_id: expect.stringMatching(/^pay_/),
      amount: 123.45,
      status: 'processing',
      fee_brl: 1.99,
      net_amount_brl: 121.46,
      customer_id: null,
      expires_at: expect.any(String),
      pix: { qr_code: expect.stringMatching(/^data:image\/png;base64,/), copia_e_cola: expect.any(String) },
    });
    const sent = h.fakes.receivedOf(createPayment).at(-1) as CreatePayment;
    expect(sent).toEqual({
      business_id: h.merchant.business_id,
      business_name: 'Padaria Pão Quente',
      method: 'pix',
      amount_centavos: 12345,
      metadata: '{"a":1}',
      token: null,
      customer_id: null,
      description: null,
      debtor: null,
    });
  });

  test("a payment naming one of the business's customers carries it; another business's customer is NOT_FOUND and nothing is created", async () => {
    answerCreateWith(aPixPaymentView, 199);
    const mine = newPublicId('cust');
    h.fakes.on(getCustomer, async (query: GetCustomer) => {
      if (query.business_id !== h.merchant.business_id || query.customer_id !== mine)
        throw new CommandError('NOT_FOUND', 'Cliente não encontrado.');
      return aCustomer({ customer_id: mine, business_id: h.merchant.business_id });
    });

    const created = await post({ payment_method: 'pix', amount: 12345, customer_id: mine });
    expect(created.status).toBe(201);
    expect(created.body.customer_id).toBe(mine);
    expect((h.fakes.receivedOf(createPayment).at(-1) as CreatePayment).customer_id).toBe(mine);

    const createsBefore = h.fakes.receivedOf(createPayment).length;
    const theirs = await post({ payment_method: 'pix', amount: 12345, customer_id: newPublicId('cust') });
    expect({ status: theirs.status, code: theirs.body.error.code }).toEqual({
      status: 404,
      code: 'NOT_FOUND',
    });
    const malformed = await post({ payment_method: 'pix', amount: 12345, customer_id: 'pay_abc' });
    expect({ status: malformed.status, code: malformed.body.error.code }).toEqual({
      status: 422,
      code: 'INVALID_FIELDS',
    });
    expect(h.fakes.receivedOf(createPayment)).toHaveLength(createsBefore);
  });

  test('a crypto payment answers with the upper-case token, the token amount and its own expiry', async () => {
    answerCreateWith(aCryptoPaymentView, 150);
    const response = await post({
      payment_method: 'crypto',
      amount: 10000,
      crypto: { currency: 'usdc', network: 'solana' },
    });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      payment_id: expect.stringMatching(/^pay_/),
      amount: 100,
      status: 'pending',
      fee_brl: 1.5,
      net_amount_brl: 98.5,
      customer_id: null,
      payment_method: 'crypto',
      crypto: {
        currency: 'USDC',
        network: 'solana',
        qr_code: expect.any(String),
        payment_link: expect.stringMatching(/^solana:/),
        wallet_address: expect.any(String),
        amount: 18.234568,
        expires_at: expect.any(String),
      },
    });
    expect(response.body).not.toHaveProperty('expires_at');
    expect((h.fakes.receivedOf(createPayment).at(-1) as CreatePayment).token).toBe('usdc');
  });

  test('a missing body lists every missing required field', async () => {
    const response = await post({});
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe('MISSING_FIELDS');
    expect(response.body.error.message).toContain('payment_method');
    expect(response.body.error.message).toContain('amount');
  });

  test('a crypto payment without its crypto object is MISSING_FIELDS naming crypto', async () => {
    const response = await post({ payment_method: 'crypto', amount: 1000 });
    expect(response.status).toBe(422);
    expect(response.body.error).toEqual({
      code: 'MISSING_FIELDS',
      message: expect.stringContaining('crypto'),
    });
  });

  test.each([
    [{ payment_method: 'pix', amount: 99 }, 'INVALID_AMOUNT'],
    [{ payment_method: 'pix', amount: 100.5 }, 'INVALID_AMOUNT'],
    [{ payment_method: 'pix', amount: '1000' }, 'INVALID_AMOUNT'],
    [{ payment_method: 'card', amount: 1000 }, 'UNSUPPORTED_PAYMENT_METHOD'],
    [{ payment_method: 'pix', amount: 1000, currency: 'usd' }, 'INVALID_FIELDS'],
    [{ payment_method: 'pix', amount: 1000, metadata: '{not json' }, 'INVALID_FIELDS'],
    [{ payment_method: 'pix', amount: 1000, metadata: { a: 1 } }, 'INVALID_FIELDS'],
    [
      { payment_method: 'crypto', amount: 1000, crypto: { currency: 'btc', network: 'solana' } },
      'INVALID_FIELDS',
    ],
  ])('the body %j is refused with %s', async (body, code) => {
    const before = h.fakes.receivedOf(createPayment).length;
    const response = await post(body);
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe(code);
    expect(h.fakes.receivedOf(createPayment)).toHaveLength(before);
  });

  test('INVALID_FIELDS names every bad field', async () => {
    const response = await post({ payment_method: 'pix', amount: 1000, currency: 'usd', metadata: 'nope' });
    expect(response.body.error.code).toBe('INVALID_FIELDS');
    expect(response.body.error.message).toContain('currency');
    expect(response.body.error.message).toContain('metadata');
  });

  test('a business without a fee rule gets NO_FEE_RULE from the payment service', async () => {
    h.fakes.on(createPayment, async () => {
      throw new CommandError('NO_FEE_RULE', 'Não há regra de tarifa para pix.');
    });
    const response = await post({ payment_method: 'pix', amount: 1000 });
    expect(response.status).toBe(422);
    expect(response.body).toEqual({
      error: { code: 'NO_FEE_RULE', message: 'Não há regra de tarifa para pix.' },
    });
  });

  test('reading a paid payment returns the public record: amounts, fee, net and refunds in BRL, who paid, no QR code', async () => {
    const payer = { name: 'Maria Souza', document_masked: '***.456.789-**' };
    const expiresAt = new Date(Date.now() + 3600_000).toISOString();
    const record = aPaymentRecord({
      business_id: h.merchant.business_id,
      amount_centavos: 5050,
      fee_centavos: 50,
      status: 'paid',
      refunded_centavos: 1010,
      expires_at: expiresAt,
      payer,
    });
    h.fakes.on(getPayment, async (query) => ({
      payment: { ...record, payment_id: query.payment_id },
      pix: aPixInstructions({ expires_at: expiresAt }),
    }));
    const response = await h.http
      .get(`/v1/payments/${record.payment_id}`)
      .set('x-api-key', h.merchant.api_key);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      payment_id: record.payment_id,
      transaction_id: null,
      business_id: h.merchant.business_id,
      method: 'pix',
      status: 'paid',
      amount_brl: 50.5,
      fee_brl: 0.5,
      net_amount_brl: 50,
      external_id: record.external_id,
      failure_code: null,
      failure_reason: null,
      description: null,
      customer_id: null,
      refunded_amount_brl: 10.1,
      expires_at: expiresAt,
      payer,
      // A payment of no subscription says so.
      subscription_id: null,
      cycle: null,
      created_at: record.created_at,
      updated_at: record.updated_at,
    });
  });

  test.each([
    ['a PIX', aPixPaymentView, 'processing'],
    ['a crypto', aCryptoPaymentView, 'pending'],
  ] as const)(
    'reading %s payment still open shows its instructions again, as its creation did',
    async (_rail, view, status) => {
      const answered = view({ business_id: h.merchant.business_id, status });
      h.fakes.on(getPayment, async () => answered);
      const read = await h.http
        .get(`/v1/payments/${answered.payment.payment_id}`)
        .set('x-api-key', h.merchant.api_key);
      expect(read.status).toBe(200);
      if (answered.pix) {
        expect(read.body.pix).toEqual({
          qr_code: answered.pix.qr_code,
          copia_e_cola: answered.pix.copia_e_cola,
        });
        expect(read.body).not.toHaveProperty('crypto');
      } else {
        expect(read.body.crypto).toEqual(aCryptoInstructionsAsAnswered(answered.crypto!));
        expect(read.body).not.toHaveProperty('pix');
      }
      expect(read.body).toMatchObject({ status, payer: null });
    },
  );

  test("another business's payment is NOT_FOUND, never shown", async () => {
    const other = await h.newBusiness('Outra Loja');
    const record = aPaymentRecord({ business_id: h.merchant.business_id });
    h.fakes.on(getPayment, async (query) => {
      if (query.business_id !== record.business_id)
        throw new CommandError('NOT_FOUND', 'Pagamento não encontrado.');
      return { payment: record };
    });
    const response = await h.http.get(`/v1/payments/${record.payment_id}`).set('x-api-key', other.api_key);
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('NOT_FOUND');
    // Even if a downstream answer named the wrong owner, the edge would not show it.
    h.fakes.on(getPayment, async () => ({ payment: record }));
    const leaked = await h.http.get(`/v1/payments/${record.payment_id}`).set('x-api-key', other.api_key);
    expect(leaked.status).toBe(404);
  });

  test('changing the amount of a crypto payment returns new crypto instructions and fees in BRL', async () => {
    h.fakes.on(updatePayment, async (command) => ({
      payment: aPaymentRecord({
        payment_id: command.payment_id,
        business_id: command.business_id,
        method: 'crypto',
        status: 'pending',
        amount_centavos: command.amount_centavos ?? 1,
        fee_centavos: 100,
      }),
      crypto: aCryptoInstructions({ currency: 'eurc', amount_base_units: '1000000' }),
    }));
    const response = await patch({ amount: 20000 });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      payment_id: 'pay_abcdefghijklmnopqrstuvwx',
      amount: 200,
      fee_brl: 1,
      net_amount_brl: 199,
      status: 'pending',
      crypto: expect.objectContaining({ currency: 'EURC', amount: 1, network: 'solana' }),
    });
    expect(h.fakes.receivedOf(updatePayment).at(-1)).toEqual<UpdatePayment>({
      business_id: h.merchant.business_id,
      payment_id: 'pay_abcdefghijklmnopqrstuvwx',
      amount_centavos: 20000,
    });
  });

  test('a metadata-only change of a PIX payment returns the new QR code and no crypto object', async () => {
    h.fakes.on(updatePayment, async (command) => ({
      ...aPixPaymentView({ payment_id: command.payment_id, business_id: command.business_id }),
    }));
    const response = await patch({ metadata: '{"pedido":7}' });
    expect(response.status).toBe(200);
    expect(response.body.pix).toEqual({ qr_code: expect.any(String), copia_e_cola: expect.any(String) });
    expect(response.body).not.toHaveProperty('crypto');
  });

  test('an empty PATCH is MISSING_FIELDS naming amount and metadata', async () => {
    const response = await patch({});
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe('MISSING_FIELDS');
    expect(response.body.error.message).toMatch(/amount.*metadata/);
  });

  test('a PATCH below the minimum amount is INVALID_AMOUNT', async () => {
    const response = await patch({ amount: 50 });
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe('INVALID_AMOUNT');
  });

  test('a PATCH of a paid payment is INVALID_STATUS naming the status', async () => {
    h.fakes.on(updatePayment, async () => {
      throw new CommandError('INVALID_STATUS', 'Pagamento com status paid não pode ser alterado.');
    });
    const response = await patch({ amount: 500 });
    expect(response.status).toBe(422);
    expect(response.body.error).toEqual({ code: 'INVALID_STATUS', message: expect.stringContaining('paid') });
  });

  test('a sandbox simulation is accepted with 202', async () => {
    h.fakes.on(simulatePayment, async () => ({ accepted: true }));
    const response = await h.http
      .post('/v1/sandbox/payments/pay_abcdefghijklmnopqrstuvwx/simulate')
      .set('x-api-key', h.merchant.api_key)
      .send({ outcome: 'paid', amount: 500 });
    expect(response.status).toBe(202);
    expect(response.body).toEqual({ accepted: true });
    expect(h.fakes.receivedOf(simulatePayment).at(-1)).toEqual({
      business_id: h.merchant.business_id,
      payment_id: 'pay_abcdefghijklmnopqrstuvwx',
      outcome: 'paid',
      amount_centavos: 500,
    });
  });
});
