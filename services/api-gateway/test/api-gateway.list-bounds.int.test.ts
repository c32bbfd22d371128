import {
  getCheckout,
  listCheckoutSessions,
  listReceivedFunds,
  newPublicId,
  type ListCheckoutSessions,
  type ListReceivedFunds,
  type ReceivedFundsItem,
} from '@gateway/contracts';
import { aCheckout, aCheckoutSession } from './support/builders';
import { harnessWithMerchantForTheseTests, expectedPageCommand } from './support/harness';

/** Every list the API answers is bounded: `limit` 1-100 (default 10), `starting_after`, `{ data, has_more }`. */
describe('api gateway: bounded lists', () => {
  const h = harnessWithMerchantForTheseTests('gw-list-bounds', { merchant: 'Livraria Cursiva' });

  const get = (path: string) => h.http.get(path).set('x-api-key', h.merchant.api_key);

  const funds = (): ReceivedFundsItem => ({
    funds_id: newPublicId('fund'),
    kind: 'late',
    rail: 'pix',
    reference: `E${'2'.repeat(31)}`,
    amount_centavos: 1500,
    amount_base_units: null,
    decimals: null,
    detected_at: new Date().toISOString(),
    status: 'held',
    returned_by: null,
    returned_at: null,
  });

  /** The page the fake service answers: as many items as asked, and more beyond them. */
  const fullPage = <T>(limit: number | undefined, make: () => T) => ({
    data: Array.from({ length: limit ?? 0 }, make),
    has_more: true,
  });

  test('a checkout read carries its embedded sessions and whether older ones exist', async () => {
    const checkoutId = newPublicId('chk');
    const sessions = [aCheckoutSession(checkoutId), aCheckoutSession(checkoutId)];
    h.fakes.on(getCheckout, async (query) =>
      aCheckout({
        checkout_id: checkoutId,
        business_id: query.business_id,
        slug: 'livro-abc123',
        sessions,
        sessions_has_more: true,
      }),
    );
    const response = await get(`/v1/checkouts/${checkoutId}`);
    expect(response.status).toBe(200);
    expect(response.body.sessions).toEqual(sessions);
    expect(response.body.sessions_has_more).toBe(true);
  });

  test('GET /v1/checkouts/{id}/sessions asks for 10 by default, passes limit and starting_after, and answers { data, has_more }', async () => {
    const checkoutId = newPublicId('chk');
    h.fakes.on(listCheckoutSessions, async (query: ListCheckoutSessions) =>
      fullPage(query.limit, () => aCheckoutSession(checkoutId)),
    );
    const first = await get(`/v1/checkouts/${checkoutId}/sessions`);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ data: expect.any(Array), has_more: true });
    expect(first.body.data).toHaveLength(10);
    expect(h.fakes.receivedOf(listCheckoutSessions).at(-1)).toEqual(
      expectedPageCommand(h.merchant, { checkout_id: checkoutId }, { limit: 10, starting_after: null }),
    );

    const after = first.body.data.at(-1).session_id as string;
    const next = await get(`/v1/checkouts/${checkoutId}/sessions?limit=100&starting_after=${after}`);
    expect(next.status).toBe(200);
    expect(next.body.data).toHaveLength(100);
    expect(h.fakes.receivedOf(listCheckoutSessions).at(-1)).toEqual(
      expectedPageCommand(h.merchant, { checkout_id: checkoutId }, { limit: 100, starting_after: after }),
    );
  });

  test('GET /v1/payments/{id}/received-funds passes limit and starting_after and answers has_more', async () => {
    const paymentId = newPublicId('pay');
    h.fakes.on(listReceivedFunds, async (query: ListReceivedFunds) => fullPage(query.limit, funds));
    const after = newPublicId('fund');
    const response = await get(`/v1/payments/${paymentId}/received-funds?limit=3&starting_after=${after}`);
    expect(response.status).toBe(200);
    expect(response.body.has_more).toBe(true);
    expect(response.body.data).toHaveLength(3);
    expect(h.fakes.receivedOf(listReceivedFunds).at(-1)).toEqual(
      expectedPageCommand(h.merchant, { payment_id: paymentId }, { limit: 3, starting_after: after }),
    );
  });

  const badQueries = [
    'limit=0',
    'limit=101',
    'limit=-1',
    'limit=2.5',
    'limit=abc',
    'limit=1e9',
    'limit=1&limit=2',
    'limit=',
    'starting_after=nope',
    `starting_after=${'x'.repeat(300)}`,
  ];

  test.each(badQueries)(
    'a bad page query (%s) is INVALID_FIELDS before any service is asked',
    async (query) => {
      const checkoutId = newPublicId('chk');
      const paymentId = newPublicId('pay');
      const sessionsBefore = h.fakes.receivedOf(listCheckoutSessions).length;
      const fundsBefore = h.fakes.receivedOf(listReceivedFunds).length;
      for (const path of [
        `/v1/checkouts/${checkoutId}/sessions?${query}`,
        `/v1/payments/${paymentId}/received-funds?${query}`,
      ]) {
        const response = await get(path);
        expect(response.status).toBe(422);
        expect(response.headers['content-type']).toMatch(/^application\/json/);
        expect(response.body).toEqual({
          error: { code: 'INVALID_FIELDS', message: expect.stringMatching(/limit|starting_after/) },
        });
      }
      expect(h.fakes.receivedOf(listCheckoutSessions)).toHaveLength(sessionsBefore);
      expect(h.fakes.receivedOf(listReceivedFunds)).toHaveLength(fundsBefore);
    },
  );

  test('a starting_after of another list is INVALID_FIELDS too (a payment id is not a session id)', async () => {
    const response = await get(
      `/v1/checkouts/${newPublicId('chk')}/sessions?starting_after=${newPublicId('pay')}`,
    );
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe('INVALID_FIELDS');
  });
});
