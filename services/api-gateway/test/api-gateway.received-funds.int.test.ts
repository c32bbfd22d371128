import {
  listReceivedFunds,
  newPublicId,
  returnReceivedFunds,
  type ListReceivedFunds,
  type ReceivedFundsItem,
  type ReturnReceivedFunds,
} from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import { harnessWithMerchantForTheseTests, expectedPageCommand } from './support/harness';

describe('api gateway: GET /v1/payments/{id}/received-funds', () => {
  const h = harnessWithMerchantForTheseTests('gw-funds', { merchant: 'Padaria Pão Quente' });

  const get = (paymentId: string, apiKey = h.merchant.api_key) =>
    h.http.get(`/v1/payments/${paymentId}/received-funds`).set('x-api-key', apiKey);

  test('lists the money kept for the payment, in BRL for PIX and in tokens for crypto, with its instruction', async () => {
    const paymentId = newPublicId('pay');
    const kept: ReceivedFundsItem[] = [
      {
        funds_id: newPublicId('fund'),
        kind: 'partial',
        rail: 'pix',
        reference: `E${'1'.repeat(31)}`,
        amount_centavos: 4050,
        amount_base_units: null,
        decimals: null,
        detected_at: '2030-01-02T03:04:05.000Z',
        status: 'held',
        returned_by: null,
        returned_at: null,
        valued_centavos: 4050,
        quote: null,
      },
      {
        funds_id: newPublicId('fund'),
        kind: 'late',
        rail: 'crypto',
        reference: '5'.repeat(87),
        instruction: '3.1',
        amount_centavos: null,
        amount_base_units: '18234568',
        decimals: 6,
        detected_at: '2030-01-02T03:05:00.000Z',
        status: 'returned',
        returned_by: 'manual',
        returned_at: '2030-01-03T00:00:00.000Z',
        valued_centavos: 9117,
        quote: { token: 'usdc', token_per_brl: '2/10', quoted_at: '2030-01-02T03:05:01.000Z' },
      },
    ];
    h.fakes.on(listReceivedFunds, async () => ({ data: kept, has_more: false }));
    const response = await get(paymentId);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      data: [
        {
          funds_id: kept[0]!.funds_id,
          kind: 'partial',
          rail: 'pix',
          reference: `E${'1'.repeat(31)}`,
          instruction: null,
          amount_brl: 40.5,
          amount_token: null,
          detected_at: '2030-01-02T03:04:05.000Z',
          status: 'held',
          returned_by: null,
          returned_at: null,
          value_brl: 40.5,
          arrival_quote: null,
        },
        {
          funds_id: kept[1]!.funds_id,
          kind: 'late',
          rail: 'crypto',
          reference: '5'.repeat(87),
          instruction: '3.1',
          amount_brl: null,
          amount_token: 18.234568,
          detected_at: '2030-01-02T03:05:00.000Z',
          status: 'returned',
          returned_by: 'manual',
          returned_at: '2030-01-03T00:00:00.000Z',
          // The quote of the tokens' arrival that valued them (0.2 token per BRL: R$ 91,17 for 18.234568).
          value_brl: 91.17,
          arrival_quote: { token_per_brl: 0.2, quoted_at: '2030-01-02T03:05:01.000Z' },
        },
      ],
      has_more: false,
    });
    expect(h.fakes.receivedOf(listReceivedFunds).at(-1)).toEqual(
      expectedPageCommand(h.merchant, { payment_id: paymentId }, { limit: 10, starting_after: null }),
    );
  });

  test('a payment with nothing kept aside answers an empty list', async () => {
    h.fakes.on(listReceivedFunds, async () => ({ data: [], has_more: false }));
    const response = await get(newPublicId('pay'));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: [], has_more: false });
  });

  test("another business's payment is NOT_FOUND", async () => {
    const paymentId = newPublicId('pay');
    h.fakes.on(listReceivedFunds, async (query: ListReceivedFunds) => {
      if (query.business_id !== h.merchant.business_id)
        throw new CommandError('NOT_FOUND', 'Pagamento não encontrado.');
      return { data: [], has_more: false };
    });
    const other = await h.newBusiness('Outra Loja');
    const response = await get(paymentId, other.api_key);
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('NOT_FOUND');
    expect((await get(paymentId)).status).toBe(200);
  });

  test('without an API key nothing is asked of the payment service', async () => {
    const before = h.fakes.receivedOf(listReceivedFunds).length;
    const response = await h.http.get(`/v1/payments/${newPublicId('pay')}/received-funds`);
    expect(response.status).toBe(401);
    expect(h.fakes.receivedOf(listReceivedFunds)).toHaveLength(before);
  });

  describe('POST /v1/payments/{id}/received-funds/{funds_id}/return', () => {
    const post = (paymentId: string, fundsId: string, apiKey = h.merchant.api_key) =>
      h.http.post(`/v1/payments/${paymentId}/received-funds/${fundsId}/return`).set('x-api-key', apiKey);

    const returnedByHand = (command: ReturnReceivedFunds): ReceivedFundsItem => ({
      funds_id: command.funds_id,
      kind: 'excess',
      rail: 'crypto',
      reference: '5'.repeat(87),
      amount_centavos: null,
      amount_base_units: '250000',
      decimals: 6,
      detected_at: '2030-01-02T03:05:00.000Z',
      status: 'returned',
      returned_by: 'manual',
      returned_at: '2030-01-02T04:00:00.000Z',
    });

    test('records the funds as returned by hand and answers them in the list shape', async () => {
      h.fakes.on(returnReceivedFunds, async (command: ReturnReceivedFunds) => returnedByHand(command));
      const paymentId = newPublicId('pay');
      const fundsId = newPublicId('fund');
      const response = await post(paymentId, fundsId);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        funds_id: fundsId,
        kind: 'excess',
        rail: 'crypto',
        reference: '5'.repeat(87),
        instruction: null,
        amount_brl: null,
        amount_token: 0.25,
        detected_at: '2030-01-02T03:05:00.000Z',
        status: 'returned',
        returned_by: 'manual',
        returned_at: '2030-01-02T04:00:00.000Z',
        // A reply that does not say what the money was valued at (an older payment service) shows null.
        value_brl: null,
        arrival_quote: null,
      });
      expect(h.fakes.receivedOf(returnReceivedFunds).at(-1)).toEqual({
        business_id: h.merchant.business_id,
        payment_id: paymentId,
        funds_id: fundsId,
      });
    });

    test('funds a refund returns are 422 INVALID_STATUS, as the payment service says', async () => {
      h.fakes.on(returnReceivedFunds, async () => {
        throw new CommandError('INVALID_STATUS', 'Estes fundos são devolvidos pelo reembolso ref_x.');
      });
      const response = await post(newPublicId('pay'), newPublicId('fund'));
      expect(response.status).toBe(422);
      expect(response.body.error).toMatchObject({
        code: 'INVALID_STATUS',
        message: 'Estes fundos são devolvidos pelo reembolso ref_x.',
      });
    });

    test('ids that cannot exist are 404 NOT_FOUND before anything is asked; no key is 401', async () => {
      const before = h.fakes.receivedOf(returnReceivedFunds).length;
      for (const [paymentId, fundsId] of [
        ['pay_x', newPublicId('fund')],
        [newPublicId('pay'), 'fund_x'],
        [newPublicId('pay'), newPublicId('ref')],
        [newPublicId('pay'), `fund_${'a'.repeat(65)}`],
        [newPublicId('pay'), 'fund_%00aaaaaaaaaaaaaaaaaaaaaaaaaaaa'],
      ]) {
        const response = await post(paymentId!, fundsId!);
        expect(response.status).toBe(404);
        expect(response.body.error.code).toBe('NOT_FOUND');
      }
      expect(
        (await h.http.post(`/v1/payments/${newPublicId('pay')}/received-funds/${newPublicId('fund')}/return`))
          .status,
      ).toBe(401);
      expect(h.fakes.receivedOf(returnReceivedFunds)).toHaveLength(before);
    });
  });
});
