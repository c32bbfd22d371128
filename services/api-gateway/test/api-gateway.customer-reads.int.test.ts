import { getCustomer, listCustomers, newPublicId, type Customer, type GetCustomer } from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import { expectedPageCommand, harnessWithMerchantForTheseTests } from './support/harness';

describe('api gateway: GET /v1/customers and /v1/customers/{id}', () => {
  const h = harnessWithMerchantForTheseTests('gw-customer-reads', { merchant: 'Padaria Pão Quente' });

  const customer = (overrides: Partial<Customer> = {}): Customer => ({
    customer_id: newPublicId('cust'),
    business_id: h.merchant.business_id,
    name: null,
    email: 'maria@example.com',
    phone_number: '+5511912345678',
    document_number: '52998224725',
    ip: '203.0.113.7',
    metadata: null,
    created_at: '2026-11-24T10:00:00.000Z',
    ...overrides,
  });
  const get = (path: string, apiKey = h.merchant.api_key) => h.http.get(path).set('x-api-key', apiKey);

  test('reads a customer of the caller’s business', async () => {
    const stored = customer();
    h.fakes.on(getCustomer, async (query: GetCustomer) => {
      if (query.business_id !== h.merchant.business_id || query.customer_id !== stored.customer_id)
        throw new CommandError('NOT_FOUND', 'Cliente não encontrado.');
      return stored;
    });
    const response = await get(`/v1/customers/${stored.customer_id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(stored);

    const other = await h.newBusiness('Outra Loja');
    const theirs = await get(`/v1/customers/${stored.customer_id}`, other.api_key);
    expect({ status: theirs.status, code: theirs.body.error.code }).toEqual({
      status: 404,
      code: 'NOT_FOUND',
    });
  });

  test('an id that cannot be a customer’s is NOT_FOUND without asking the customer service', async () => {
    const before = h.fakes.receivedOf(getCustomer).length;
    for (const id of ['pay_abcdefghijklmnopqrstuvwx', 'cust_%00', `cust_${'a'.repeat(65)}`]) {
      expect((await get(`/v1/customers/${id}`)).status).toBe(404);
    }
    expect(h.fakes.receivedOf(getCustomer)).toHaveLength(before);
  });

  test('lists a page of the caller’s customers with the cursor it was given', async () => {
    const page = { data: [customer(), customer()], has_more: true };
    h.fakes.on(listCustomers, async () => page);
    const startingAfter = newPublicId('cust');
    const response = await get(`/v1/customers?limit=2&starting_after=${startingAfter}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(page);
    expect(h.fakes.receivedOf(listCustomers).at(-1)).toEqual(
      expectedPageCommand(h.merchant, {}, { limit: 2, starting_after: startingAfter }),
    );
  });

  test('passes an e-mail filter on to the customer service, which compares it', async () => {
    const page = { data: [customer()], has_more: false };
    h.fakes.on(listCustomers, async () => page);
    const response = await get(`/v1/customers?email=${encodeURIComponent('Maria@Loja.example')}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(page);
    expect(h.fakes.receivedOf(listCustomers).at(-1)).toEqual(
      expect.objectContaining({ business_id: h.merchant.business_id, email: 'Maria@Loja.example' }),
    );
  });

  test.each([
    ['a limit of 0', '?limit=0'],
    ['a cursor of another kind', '?starting_after=pay_abcdefghijklmnopqrstuvwx'],
    ['a repeated limit', '?limit=1&limit=2'],
    ['an e-mail longer than an address may be', `?email=${'a'.repeat(250)}@x.com`],
  ])('%s is INVALID_FIELDS', async (_what, query) => {
    const response = await get(`/v1/customers${query}`);
    expect({ status: response.status, code: response.body.error.code }).toEqual({
      status: 422,
      code: 'INVALID_FIELDS',
    });
  });
});
