import {
  advanceSubscriptionClock,
  cancelSubscription,
  createSubscription,
  dateOfDay,
  getCustomer,
  getSubscription,
  listPayments,
  listSubscriptions,
  newPublicId,
  saoPauloDay,
  type CreateSubscription,
  type GetCustomer,
  type ListSubscriptions,
  type SubscriptionRecord,
} from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import { aPaymentRecord } from '@gateway/testkit';
import { aCustomer } from './support/builders';
import { harnessWithMerchantForTheseTests } from './support/harness';

const inDays = (days: number) => dateOfDay(saoPauloDay(new Date()) + days);

function aSubscriptionRecord(overrides: Partial<SubscriptionRecord> = {}): SubscriptionRecord {
  const now = new Date().toISOString();
  return {
    subscription_id: newPublicId('sub'),
    business_id: newPublicId('biz'),
    customer_id: newPublicId('cust'),
    status: 'pending_authorization',
    amount_centavos: 9990,
    minimum_amount_centavos: null,
    interval: 'monthly',
    start_date: inDays(30),
    end_date: null,
    description: null,
    retry_policy: 'none',
    journey: 'qr',
    metadata: null,
    authorization: {
      qr_code: 'data:image/png;base64,AAAA',
      copia_e_cola: '00020101021226',
      expires_at: now,
    },
    first_payment_id: null,
    next_cycle: 1,
    next_due_date: inDays(30),
    current_date: inDays(0),
    cancelled_by: null,
    cancellation_reason: null,
    ended_at: null,
    created_at: now,
    updated_at: now,
    ...overrides,
  };
}

describe('api gateway: subscriptions', () => {
  const h = harnessWithMerchantForTheseTests('gw-sub', { merchant: 'Academia Força' });
  const withDocument = newPublicId('cust');
  const withoutDocument = newPublicId('cust');

  beforeEach(() => {
    h.fakes.on(getCustomer, async (query: GetCustomer) => {
      if (query.business_id !== h.merchant.business_id)
        throw new CommandError('NOT_FOUND', 'Cliente não encontrado.');
      if (query.customer_id === withDocument)
        return aCustomer({
          customer_id: withDocument,
          business_id: h.merchant.business_id,
          name: 'Francisco da Silva',
          document_number: '12345678909',
        });
      if (query.customer_id === withoutDocument)
        return aCustomer({
          customer_id: withoutDocument,
          business_id: h.merchant.business_id,
          name: 'Sem CPF',
        });
      throw new CommandError('NOT_FOUND', 'Cliente não encontrado.');
    });
    h.fakes.on(createSubscription, async (command: CreateSubscription) =>
      aSubscriptionRecord({
        business_id: command.business_id,
        customer_id: command.customer_id,
        amount_centavos: command.amount_centavos,
        minimum_amount_centavos: command.minimum_amount_centavos,
        journey: command.journey,
        start_date: command.start_date,
      }),
    );
  });

  const post = (body: unknown) =>
    h.http
      .post('/v1/subscriptions')
      .set('x-api-key', h.merchant.api_key)
      .send(body as object);
  const valid = () => ({
    customer_id: withDocument,
    amount: 9990,
    interval: 'monthly',
    start_date: inDays(30),
    description: 'Plano mensal',
    retry_policy: 'three_in_seven_days',
    authorization: { journey: 'qr' },
  });
  const refusal = async (body: unknown) => {
    const before = h.fakes.receivedOf(createSubscription).length;
    const response = await post(body);
    // Nothing reaches the payment service for a refused request.
    expect(h.fakes.receivedOf(createSubscription)).toHaveLength(before);
    return {
      status: response.status,
      code: response.body.error?.code,
      message: response.body.error?.message,
    };
  };

  test('a subscription is created from centavos with the customer as debtor, and answered in BRL', async () => {
    const response = await post(valid());
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      subscription_id: expect.stringMatching(/^sub_/),
      status: 'pending_authorization',
      amount_brl: 99.9,
      minimum_amount_brl: null,
      authorization: { journey: 'qr', qr_code: expect.any(String), copia_e_cola: expect.any(String) },
    });
    expect(response.body).not.toHaveProperty('business_id');
    expect(h.fakes.receivedOf(createSubscription).at(-1)).toEqual({
      business_id: h.merchant.business_id,
      business_name: 'Academia Força',
      customer_id: withDocument,
      debtor: { name: 'Francisco da Silva', document: '12345678909' },
      amount_centavos: 9990,
      minimum_amount_centavos: null,
      interval: 'monthly',
      start_date: inDays(30),
      end_date: null,
      description: 'Plano mensal',
      retry_policy: 'three_in_seven_days',
      journey: 'qr',
      payer_account: null,
      metadata: null,
    });
  });

  test('push takes the payer account; a varying amount takes a minimum', async () => {
    const account = { ispb: '12345678', branch: null, account: '99887-1' };
    const response = await post({
      ...valid(),
      amount: undefined,
      minimum_amount: 5000,
      authorization: { journey: 'push', payer_account: account },
    });
    expect(response.status).toBe(201);
    expect(h.fakes.receivedOf(createSubscription).at(-1)).toMatchObject({
      amount_centavos: null,
      minimum_amount_centavos: 5000,
      journey: 'push',
      payer_account: account,
    });
  });

  test('missing and invalid fields are refused with the error shape, naming them', async () => {
    expect(await refusal({})).toMatchObject({ status: 422, code: 'MISSING_FIELDS' });
    expect(await refusal({ ...valid(), amount: undefined })).toMatchObject({
      status: 422,
      code: 'MISSING_FIELDS',
    });
    expect(await refusal({ ...valid(), minimum_amount: 100 })).toMatchObject({ code: 'INVALID_FIELDS' });
    expect(await refusal({ ...valid(), amount: 10.5 })).toMatchObject({ status: 422 });
    expect(await refusal({ ...valid(), interval: 'daily' })).toMatchObject({ code: 'INVALID_FIELDS' });
    expect(await refusal({ ...valid(), start_date: '2030-02-30' })).toMatchObject({ code: 'INVALID_FIELDS' });
    expect(await refusal({ ...valid(), customer_id: 'pay_abc' })).toMatchObject({ code: 'INVALID_FIELDS' });
    expect(await refusal({ ...valid(), authorization: { journey: 'push' } })).toMatchObject({
      status: 422,
      code: 'MISSING_FIELDS',
      message: expect.stringContaining('payer_account'),
    });
    expect(
      await refusal({
        ...valid(),
        authorization: { journey: 'qr', payer_account: { ispb: '12345678', branch: null, account: '1' } },
      }),
    ).toMatchObject({ code: 'INVALID_FIELDS', message: expect.stringContaining('payer_account') });
    expect(
      await refusal({
        ...valid(),
        amount: undefined,
        minimum_amount: 100,
        authorization: { journey: 'qr_with_first_payment' },
      }),
    ).toMatchObject({ code: 'MISSING_FIELDS', message: expect.stringContaining('amount') });
  });

  test('dates: not before today, far enough ahead for BCB window (push, qr), an end not before the start', async () => {
    const past = await refusal({ ...valid(), start_date: inDays(-1) });
    expect(past).toMatchObject({ code: 'INVALID_FIELDS', message: expect.stringContaining('start_date') });
    expect(await refusal({ ...valid(), start_date: inDays(1) })).toMatchObject({ code: 'INVALID_FIELDS' });
    expect(await refusal({ ...valid(), start_date: inDays(365 * 6) })).toMatchObject({
      code: 'INVALID_FIELDS',
    });
    const end = await refusal({ ...valid(), end_date: inDays(29) });
    expect(end).toMatchObject({ code: 'INVALID_FIELDS', message: expect.stringContaining('end_date') });
    // Journey 3 pays cycle 1 at once: today is early enough.
    const today = await post({
      ...valid(),
      start_date: inDays(0),
      authorization: { journey: 'qr_with_first_payment' },
    });
    expect(today.status).toBe(201);
  });

  test('NUL bytes and huge input are refused with the error shape', async () => {
    expect(await refusal({ ...valid(), description: 'Plano\u0000' })).toMatchObject({
      code: 'INVALID_FIELDS',
    });
    expect(await refusal({ ...valid(), 'chave\u0000': 1 })).toMatchObject({ code: 'INVALID_FIELDS' });
    expect(await refusal({ ...valid(), description: 'x'.repeat(141) })).toMatchObject({
      code: 'INVALID_FIELDS',
    });
    expect(await refusal({ ...valid(), metadata: JSON.stringify({ a: 'x'.repeat(200_000) }) })).toMatchObject(
      {
        status: 413,
        code: 'PAYLOAD_TOO_LARGE',
      },
    );
  });

  test("a customer without a document is CUSTOMER_DOCUMENT_REQUIRED; another business's is NOT_FOUND", async () => {
    expect(await refusal({ ...valid(), customer_id: withoutDocument })).toMatchObject({
      status: 422,
      code: 'CUSTOMER_DOCUMENT_REQUIRED',
    });
    expect(await refusal({ ...valid(), customer_id: newPublicId('cust') })).toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
    });
  });

  test("reads: another business's subscription is NOT_FOUND, whatever the payment service answers", async () => {
    const mine = aSubscriptionRecord({ business_id: h.merchant.business_id });
    h.fakes.on(getSubscription, async (query) => {
      if (query.subscription_id === mine.subscription_id) return mine;
      if (query.subscription_id.startsWith('sub_x'))
        return aSubscriptionRecord({ subscription_id: query.subscription_id });
      throw new CommandError('NOT_FOUND', 'Assinatura não encontrada.');
    });
    const get = (id: string) => h.http.get(`/v1/subscriptions/${id}`).set('x-api-key', h.merchant.api_key);
    const read = await get(mine.subscription_id);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ subscription_id: mine.subscription_id, amount_brl: 99.9 });
    expect((await get(newPublicId('sub'))).status).toBe(404);
    expect((await get(`sub_x${'a'.repeat(30)}`)).status).toBe(404);
    expect((await get('pay_abcdefghijklmnopqrstuvwx')).status).toBe(404);
  });

  test('list passes its filters; cancel answers the cancelled subscription', async () => {
    const mine = aSubscriptionRecord({ business_id: h.merchant.business_id, status: 'active' });
    h.fakes.on(listSubscriptions, async () => ({ data: [mine], has_more: false }));
    const list = await h.http
      .get(`/v1/subscriptions?status=active&customer_id=${mine.customer_id}&limit=5`)
      .set('x-api-key', h.merchant.api_key);
    expect(list.status).toBe(200);
    expect(list.body.data.map((s: { subscription_id: string }) => s.subscription_id)).toEqual([
      mine.subscription_id,
    ]);
    expect(h.fakes.receivedOf(listSubscriptions).at(-1) as ListSubscriptions).toMatchObject({
      business_id: h.merchant.business_id,
      status: 'active',
      customer_id: mine.customer_id,
      limit: 5,
    });
    const badStatus = await h.http
      .get('/v1/subscriptions?status=paused')
      .set('x-api-key', h.merchant.api_key);
    expect(badStatus.body.error.code).toBe('INVALID_FIELDS');

    h.fakes.on(cancelSubscription, async () => ({
      ...mine,
      status: 'cancelled' as const,
      cancelled_by: 'merchant' as const,
      cancellation_reason: 'requested' as const,
      ended_at: new Date().toISOString(),
    }));
    const cancelled = await h.http
      .post(`/v1/subscriptions/${mine.subscription_id}/cancel`)
      .set('x-api-key', h.merchant.api_key);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', cancelled_by: 'merchant' });
  });

  test('payments list by subscription, from the payment service', async () => {
    h.fakes.on(listPayments, async () => ({ data: [], has_more: false }));
    const subscriptionId = newPublicId('sub');
    const list = await h.http
      .get(`/v1/payments?subscription_id=${subscriptionId}`)
      .set('x-api-key', h.merchant.api_key);
    expect(list.status).toBe(200);
    expect(h.fakes.receivedOf(listPayments).at(-1)).toMatchObject({ subscription_id: subscriptionId });
    const bad = await h.http.get('/v1/payments?subscription_id=pay_1').set('x-api-key', h.merchant.api_key);
    expect(bad.body.error.code).toBe('INVALID_FIELDS');
    // A payment service older than subscriptions ignores the filter: its whole list never passes for the cycles.
    h.fakes.on(listPayments, async () => ({
      data: [aPaymentRecord({ business_id: h.merchant.business_id })],
      has_more: false,
    }));
    const unfiltered = await h.http
      .get(`/v1/payments?subscription_id=${subscriptionId}`)
      .set('x-api-key', h.merchant.api_key);
    expect({ status: unfiltered.status, code: unfiltered.body.error?.code }).toEqual({
      status: 500,
      code: 'INTERNAL_ERROR',
    });
  });

  test('the sandbox advance sends the day; a day that does not exist is INVALID_FIELDS', async () => {
    const mine = aSubscriptionRecord({ business_id: h.merchant.business_id });
    const asked: string[] = [];
    h.fakes.on(advanceSubscriptionClock, async (command) => {
      asked.push(command.to);
      return mine;
    });
    const advance = (to: string) =>
      h.http
        .post(`/v1/sandbox/subscriptions/${mine.subscription_id}/advance`)
        .set('x-api-key', h.merchant.api_key)
        .send({ to });
    const moved = await advance(inDays(40));
    expect(moved.status).toBe(202);
    expect(moved.body.subscription_id).toBe(mine.subscription_id);
    expect(asked).toEqual([inDays(40)]);
    const bad = await advance('2030-13-01');
    expect(bad.body.error.code).toBe('INVALID_FIELDS');
  });
});
