import { listPayments, newPublicId, type ListPayments } from '@gateway/contracts';
import { aPaymentRecord } from '@gateway/testkit';
import { expectedPageCommand, harnessWithMerchantForTheseTests } from './support/harness';

describe('api gateway: GET /v1/payments', () => {
  const h = harnessWithMerchantForTheseTests('gw-payment-list', { merchant: 'Padaria Pão Quente' });

  const get = (query: string, apiKey = h.merchant.api_key) =>
    h.http.get(`/v1/payments${query}`).set('x-api-key', apiKey);

  test('answers a page of payment records in BRL, asking for the caller’s own business with the page and filters', async () => {
    const record = aPaymentRecord({
      business_id: h.merchant.business_id,
      amount_centavos: 12345,
      fee_centavos: 200,
    });
    h.fakes.on(listPayments, async () => ({ data: [record], has_more: true }));
    const startingAfter = newPublicId('pay');

    const response = await get(
      `?limit=1&starting_after=${startingAfter}&status=processing&method=pix` +
        '&created_gte=2026-01-01T00:00:00Z&created_lt=2026-12-31T23:59:59.999Z',
    );

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      data: [
        expect.objectContaining({ payment_id: record.payment_id, amount_brl: 123.45, status: 'processing' }),
      ],
      has_more: true,
    });
    expect(h.fakes.receivedOf(listPayments).at(-1)).toEqual<ListPayments>({
      business_id: h.merchant.business_id,
      limit: 1,
      starting_after: startingAfter,
      status: 'processing',
      method: 'pix',
      created_gte: '2026-01-01T00:00:00.000Z',
      created_lt: '2026-12-31T23:59:59.999Z',
    });
  });

  test('without a query it asks for the first page of ten', async () => {
    h.fakes.on(listPayments, async () => ({ data: [], has_more: false }));
    const response = await get('');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: [], has_more: false });
    expect(h.fakes.receivedOf(listPayments).at(-1)).toEqual(
      expectedPageCommand(h.merchant, {}, { limit: 10, starting_after: null }),
    );
  });

  test.each([
    ['a limit of 0', '?limit=0', 'limit'],
    ['a limit over 100', '?limit=101', 'limit'],
    ['an unknown status', '?status=refunded', 'status'],
    ['an unknown method', '?method=boleto', 'method'],
    ['a date that is not one', '?created_gte=yesterday', 'created_gte'],
    ['a cursor that is not a payment id', '?starting_after=cust_abc', 'starting_after'],
    ['a NUL in a filter', '?status=paid%00', 'status'],
    ['a filter given twice', '?method=pix&method=crypto', 'method'],
  ])('%s is INVALID_FIELDS, and nothing is asked of the payment service', async (_what, query, field) => {
    const before = h.fakes.receivedOf(listPayments).length;
    const response = await get(query);
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe('INVALID_FIELDS');
    expect(response.body.error.message).toContain(field);
    expect(h.fakes.receivedOf(listPayments)).toHaveLength(before);
  });

  test("a payment service answering another business's payment is never shown (INTERNAL_ERROR)", async () => {
    h.fakes.on(listPayments, async () => ({ data: [aPaymentRecord()], has_more: false }));
    const response = await get('');
    expect(response.status).toBe(500);
    expect(response.body.error.code).toBe('INTERNAL_ERROR');
  });

  test('without an API key nothing is asked of the payment service', async () => {
    const before = h.fakes.receivedOf(listPayments).length;
    expect((await h.http.get('/v1/payments')).status).toBe(401);
    expect(h.fakes.receivedOf(listPayments)).toHaveLength(before);
  });
});
