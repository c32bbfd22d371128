import {
  assignReceivedFunds,
  newPublicId,
  type AssignReceivedFunds,
  type OperatorReceivedFundsItem,
} from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import { ADMIN_TOKEN, harnessWithMerchantForTheseTests } from './support/harness';

describe('api gateway: POST /admin/v1/received-funds/{funds_id}/assign', () => {
  const h = harnessWithMerchantForTheseTests('gw-assign-funds', { merchant: 'Empório Central' });

  const assign = (fundsId: string, body: unknown = {}, token = ADMIN_TOKEN) =>
    h.http
      .post(`/admin/v1/received-funds/${fundsId}/assign`)
      .set('Authorization', `Bearer ${token}`)
      .send(body as object);

  const assignedItem = (fundsId: string, paymentId: string): OperatorReceivedFundsItem => ({
    funds_id: fundsId,
    kind: 'late',
    rail: 'pix',
    reference: `E${'2'.repeat(31)}`,
    instruction: null,
    amount_centavos: 4_200,
    amount_base_units: null,
    decimals: null,
    detected_at: '2030-01-02T03:04:05.000Z',
    status: 'assigned',
    returned_by: null,
    returned_at: null,
    assigned_payment_id: paymentId,
    assigned_at: '2030-01-03T00:00:00.000Z',
    payment_id: paymentId,
    business_id: h.merchant.business_id,
  });

  test('assigns the funds (to the payment they named unless told) and answers the operator record in BRL', async () => {
    const fundsId = newPublicId('fund');
    const paymentId = newPublicId('pay');
    const sent: AssignReceivedFunds[] = [];
    h.fakes.on(assignReceivedFunds, async (command) => {
      sent.push(command);
      return assignedItem(command.funds_id, command.payment_id ?? paymentId);
    });

    const named = await assign(fundsId);
    const other = newPublicId('pay');
    const elsewhere = await assign(fundsId, { payment_id: other });

    expect(sent).toEqual([
      { funds_id: fundsId, payment_id: null },
      { funds_id: fundsId, payment_id: other },
    ]);
    expect(named.status).toBe(200);
    expect(named.body).toEqual({
      funds_id: fundsId,
      kind: 'late',
      rail: 'pix',
      reference: `E${'2'.repeat(31)}`,
      instruction: null,
      amount_brl: 42,
      amount_token: null,
      detected_at: '2030-01-02T03:04:05.000Z',
      status: 'assigned',
      returned_by: null,
      returned_at: null,
      value_brl: null,
      arrival_quote: null,
      payment_id: paymentId,
      business_id: h.merchant.business_id,
      amount_base_units: null,
      assigned_payment_id: paymentId,
      assigned_at: '2030-01-03T00:00:00.000Z',
      return_reference: null,
      return_failure_reason: null,
    });
    expect(elsewhere.body).toMatchObject({ assigned_payment_id: other });
  });

  test.each([
    ['NOT_FOUND', 404],
    ['MISSING_FIELDS', 422],
    ['INVALID_STATUS', 422],
  ] as const)(
    'the payment service refusing it with %s is answered %i with that code',
    async (code, status) => {
      h.fakes.on(assignReceivedFunds, async () => {
        throw new CommandError(code, 'Recusado.');
      });
      const response = await assign(newPublicId('fund'));
      expect(response.status).toBe(status);
      expect(response.body).toEqual({ error: { code, message: expect.any(String) } });
    },
  );

  test('bad ids, bodies and credentials are refused before any command is sent', async () => {
    const sent: unknown[] = [];
    h.fakes.on(assignReceivedFunds, async (command) => {
      sent.push(command);
      return assignedItem(command.funds_id, newPublicId('pay'));
    });
    expect((await assign('fund_short')).status).toBe(404);
    expect((await assign(`pay_${'a'.repeat(24)}`)).status).toBe(404);
    const badPayment = await assign(newPublicId('fund'), { payment_id: 'not-a-payment' });
    expect(badPayment.status).toBe(422);
    expect(badPayment.body.error.code).toBe('INVALID_FIELDS');
    const array = await h.http
      .post(`/admin/v1/received-funds/${newPublicId('fund')}/assign`)
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .set('content-type', 'application/json')
      .send('[]');
    expect(array.body).toEqual({ error: { code: 'INVALID_FIELDS', message: expect.any(String) } });
    const unauthorized = await assign(newPublicId('fund'), {}, 'not-the-admin-token');
    expect(unauthorized.status).toBe(401);
    expect(
      (
        await h.http
          .post(`/admin/v1/received-funds/${newPublicId('fund')}/assign`)
          .set('x-api-key', h.merchant.api_key)
          .send({})
      ).status,
    ).toBe(401);
    expect(sent).toEqual([]);
  });
});
