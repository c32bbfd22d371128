import {
  cancelPayment,
  createRefund,
  getEvent,
  getRefund,
  listEvents,
  listRefunds,
  newPublicId,
  type PaymentView,
  type PublicEvent,
  type RefundRecord,
} from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import { aPaymentRecord, aRefundRecord } from '@gateway/testkit';
import { expectedPageCommand, harnessWithMerchantForTheseTests } from './support/harness';

describe('api gateway: cancel, refunds and events routes', () => {
  const h = harnessWithMerchantForTheseTests('gw-refunds-events', { merchant: 'Mercearia Boa Vista' });

  const refund = (overrides: Partial<RefundRecord> = {}): RefundRecord =>
    aRefundRecord({
      business_id: h.merchant.business_id,
      amount_centavos: 1050,
      reason: 'produto devolvido',
      created_at: '2026-11-24T10:00:00.000Z',
      updated_at: '2026-11-24T10:00:00.000Z',
      ...overrides,
    });
  /** A refund as the API shows it: the record without its business, method and centavos, its amount in BRL. */
  const publicRefund = ({
    business_id: _business,
    method: _method,
    amount_centavos,
    ...shown
  }: RefundRecord) => ({
    ...shown,
    amount_brl: amount_centavos / 100,
  });
  const as = (key: string) => ({ 'x-api-key': key });
  const post = (path: string, body?: unknown) => {
    const request = h.http.post(path).set(as(h.merchant.api_key));
    return body === undefined ? request : request.send(body as object);
  };
  const get = (path: string) => h.http.get(path).set(as(h.merchant.api_key));
  const errorOf = (response: { status: number; body: { error?: { code: string } } }) => ({
    status: response.status,
    code: response.body.error?.code,
  });

  describe('POST /v1/payments/{id}/cancel', () => {
    test('answers the cancelled payment record, with refunded_amount_brl', async () => {
      const paymentId = newPublicId('pay');
      const view: PaymentView = {
        payment: aPaymentRecord({
          payment_id: paymentId,
          business_id: h.merchant.business_id,
          status: 'cancelled',
          amount_centavos: 2500,
          refunded_centavos: 0,
        }),
      };
      h.fakes.on(cancelPayment, async () => view);
      const response = await post(`/v1/payments/${paymentId}/cancel`);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        payment_id: paymentId,
        status: 'cancelled',
        amount_brl: 25,
        refunded_amount_brl: 0,
      });
      expect(response.body).not.toHaveProperty('fee_centavos');
      expect(h.fakes.receivedOf(cancelPayment).at(-1)).toEqual({
        business_id: h.merchant.business_id,
        payment_id: paymentId,
      });
    });

    test('INVALID_STATUS passes through with its message; an id of the wrong shape is NOT_FOUND at once', async () => {
      h.fakes.on(cancelPayment, async () => {
        throw new CommandError('INVALID_STATUS', 'Operação não permitida: o pagamento está com status paid.');
      });
      const refused = await post(`/v1/payments/${newPublicId('pay')}/cancel`);
      expect(refused.status).toBe(422);
      expect(refused.body).toEqual({
        error: {
          code: 'INVALID_STATUS',
          message: 'Operação não permitida: o pagamento está com status paid.',
        },
      });
      const calls = h.fakes.receivedOf(cancelPayment).length;
      for (const id of ['pay_short', 'ref_abcdefghijklmnopqrstuvwxyz', 'pay_%00abcdefghijklmnopqrstuvwxyz']) {
        expect(errorOf(await post(`/v1/payments/${id}/cancel`))).toEqual({ status: 404, code: 'NOT_FOUND' });
      }
      expect(h.fakes.receivedOf(cancelPayment)).toHaveLength(calls);
    });
  });

  describe('POST /v1/payments/{id}/refunds', () => {
    test('201 with the refund in BRL; amount and reason optional', async () => {
      const paymentId = newPublicId('pay');
      const record = refund({ payment_id: paymentId });
      h.fakes.on(createRefund, async () => record);
      const response = await post(`/v1/payments/${paymentId}/refunds`, {
        amount: 1050,
        reason: 'produto devolvido',
      });
      expect(response.status).toBe(201);
      expect(response.body).toEqual(publicRefund(record));
      expect(h.fakes.receivedOf(createRefund).at(-1)).toEqual({
        business_id: h.merchant.business_id,
        payment_id: paymentId,
        amount_centavos: 1050,
        reason: 'produto devolvido',
      });
      expect((await post(`/v1/payments/${paymentId}/refunds`, { reason: '' })).status).toBe(201);
      expect(h.fakes.receivedOf(createRefund).at(-1)).toEqual({
        business_id: h.merchant.business_id,
        payment_id: paymentId,
        amount_centavos: null,
        reason: null,
      });
    });

    test.each([
      [{ amount: 99 }, 'INVALID_AMOUNT'],
      [{ amount: 1000000000000 }, 'INVALID_AMOUNT'],
      [{ amount: 10.5 }, 'INVALID_AMOUNT'],
      [{ amount: '100' }, 'INVALID_AMOUNT'],
      [{ reason: 'x'.repeat(141) }, 'INVALID_FIELDS'],
      [{ reason: 'a\u0000b' }, 'INVALID_FIELDS'],
      [{ reason: { nested: true } }, 'INVALID_FIELDS'],
      [[{ amount: 100 }], 'INVALID_FIELDS'],
    ])('a body %j is refused with %s before any command', async (body, code) => {
      const calls = h.fakes.receivedOf(createRefund).length;
      const response = await post(`/v1/payments/${newPublicId('pay')}/refunds`, body);
      expect(errorOf(response)).toEqual({ status: 422, code });
      expect(h.fakes.receivedOf(createRefund)).toHaveLength(calls);
    });

    test('REFUND_NOT_ALLOWED is 422 with its code', async () => {
      h.fakes.on(createRefund, async () => {
        throw new CommandError(
          'REFUND_NOT_ALLOWED',
          'O prazo de 90 dias para devolver este pagamento já passou.',
        );
      });
      const response = await post(`/v1/payments/${newPublicId('pay')}/refunds`, {});
      expect(errorOf(response)).toEqual({ status: 422, code: 'REFUND_NOT_ALLOWED' });
      expect(response.body.error.message).toContain('90 dias');
    });

    test('the same Idempotency-Key answers the first refund again; another body under it is IDEMPOTENCY_CONFLICT', async () => {
      const paymentId = newPublicId('pay');
      let made = 0;
      h.fakes.on(createRefund, async () =>
        refund({ payment_id: paymentId, refund_id: newPublicId('ref'), amount_centavos: 100 + made++ }),
      );
      const key = newPublicId('idem');
      const first = await post(`/v1/payments/${paymentId}/refunds`, { amount: 100 }).set(
        'idempotency-key',
        key,
      );
      const again = await post(`/v1/payments/${paymentId}/refunds`, { amount: 100 }).set(
        'idempotency-key',
        key,
      );
      expect(first.status).toBe(201);
      expect(again.status).toBe(201);
      expect(again.body).toEqual(first.body);
      const conflict = await post(`/v1/payments/${paymentId}/refunds`, { amount: 200 }).set(
        'idempotency-key',
        key,
      );
      expect(errorOf(conflict)).toEqual({ status: 409, code: 'IDEMPOTENCY_CONFLICT' });
      expect(made).toBe(1);
    });

    test('a refund answered for another business is never shown', async () => {
      h.fakes.on(createRefund, async () => refund({ business_id: newPublicId('biz') }));
      expect(errorOf(await post(`/v1/payments/${newPublicId('pay')}/refunds`, {}))).toEqual({
        status: 404,
        code: 'NOT_FOUND',
      });
    });
  });

  describe('GET /v1/refunds/{id} and GET /v1/payments/{id}/refunds', () => {
    test('read one refund and a page of a payment’s refunds', async () => {
      const record = refund({ status: 'succeeded', external_id: 'D123' });
      h.fakes.on(getRefund, async () => record);
      const one = await get(`/v1/refunds/${record.refund_id}`);
      expect(one.status).toBe(200);
      expect(one.body).toEqual(publicRefund(record));
      h.fakes.on(listRefunds, async () => ({ data: [record], has_more: true }));
      const startingAfter = newPublicId('ref');
      const page = await get(
        `/v1/payments/${record.payment_id}/refunds?limit=1&starting_after=${startingAfter}`,
      );
      expect(page.status).toBe(200);
      expect(page.body).toEqual({ data: [publicRefund(record)], has_more: true });
      expect(h.fakes.receivedOf(listRefunds).at(-1)).toEqual(
        expectedPageCommand(
          h.merchant,
          { payment_id: record.payment_id },
          { limit: 1, starting_after: startingAfter },
        ),
      );
    });

    test('bad ids are NOT_FOUND and bad pages INVALID_FIELDS, without a command', async () => {
      const reads = h.fakes.receivedOf(getRefund).length;
      const lists = h.fakes.receivedOf(listRefunds).length;
      expect(errorOf(await get('/v1/refunds/pay_abcdefghijklmnopqrstuvwxyz'))).toEqual({
        status: 404,
        code: 'NOT_FOUND',
      });
      expect(errorOf(await get('/v1/refunds/ref_x'))).toEqual({ status: 404, code: 'NOT_FOUND' });
      const paymentId = newPublicId('pay');
      for (const query of ['?limit=0', '?limit=101', '?starting_after=pay_abcdefghijklmnopqrstuvwxyz']) {
        expect(errorOf(await get(`/v1/payments/${paymentId}/refunds${query}`))).toEqual({
          status: 422,
          code: 'INVALID_FIELDS',
        });
      }
      expect(h.fakes.receivedOf(getRefund)).toHaveLength(reads);
      expect(h.fakes.receivedOf(listRefunds)).toHaveLength(lists);
    });
  });

  describe('GET /v1/events and /v1/events/{id}', () => {
    const event = (): PublicEvent => ({
      id: newPublicId('evt'),
      type: 'refund.succeeded',
      created_at: '2026-11-24T10:00:00.000Z',
      business_id: h.merchant.business_id,
      data: { refund_id: newPublicId('ref'), amount_brl: 10.5 },
    });

    test('lists with limit, cursor and type; reads one', async () => {
      const page = { data: [event()], has_more: false };
      h.fakes.on(listEvents, async () => page);
      const startingAfter = newPublicId('evt');
      const response = await get(`/v1/events?limit=5&starting_after=${startingAfter}&type=refund.succeeded`);
      expect(response.status).toBe(200);
      expect(response.body).toEqual(page);
      expect(h.fakes.receivedOf(listEvents).at(-1)).toEqual({
        business_id: h.merchant.business_id,
        limit: 5,
        starting_after: startingAfter,
        type: 'refund.succeeded',
      });
      const one = event();
      h.fakes.on(getEvent, async () => one);
      const read = await get(`/v1/events/${one.id}`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(one);
    });

    test('an unknown type, a bad limit or cursor is INVALID_FIELDS; a bad id NOT_FOUND', async () => {
      const lists = h.fakes.receivedOf(listEvents).length;
      for (const query of ['?type=payment.refunded', '?type=', '?limit=abc', '?starting_after=evt_x']) {
        expect(errorOf(await get(`/v1/events${query}`))).toEqual({ status: 422, code: 'INVALID_FIELDS' });
      }
      expect(h.fakes.receivedOf(listEvents)).toHaveLength(lists);
      expect(errorOf(await get('/v1/events/evt_x'))).toEqual({ status: 404, code: 'NOT_FOUND' });
    });
  });
});
