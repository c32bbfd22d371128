import {
  newPublicId,
  returnHeldFunds,
  type OperatorReceivedFundsItem,
  type ReturnHeldFunds,
} from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import { ADMIN_TOKEN, harnessWithMerchantForTheseTests } from './support/harness';

describe('api gateway: POST /admin/v1/received-funds/{funds_id}/return', () => {
  const h = harnessWithMerchantForTheseTests('gw-return-funds', { merchant: 'Empório Devolve' });

  const sendBack = (fundsId: string, body: unknown = {}, token = ADMIN_TOKEN) =>
    h.http
      .post(`/admin/v1/received-funds/${fundsId}/return`)
      .set('Authorization', `Bearer ${token}`)
      .send(body as object);

  const returningItem = (fundsId: string): OperatorReceivedFundsItem => ({
    funds_id: fundsId,
    kind: 'late',
    rail: 'pix',
    reference: `E${'3'.repeat(31)}`,
    instruction: null,
    amount_centavos: 4_200,
    valued_centavos: 4_200,
    amount_base_units: null,
    decimals: null,
    detected_at: '2030-01-02T03:04:05.000Z',
    status: 'returning',
    returned_by: 'operator',
    returned_at: null,
    payment_id: 'pay_abcdefghijklmnopqrstuvwx',
    business_id: h.merchant.business_id,
    return_reference: null,
    return_failure_reason: null,
  });

  test('starts the return with the reason and answers the operator record, returning, in BRL', async () => {
    const fundsId = newPublicId('fund');
    const sent: ReturnHeldFunds[] = [];
    h.fakes.on(returnHeldFunds, async (command) => {
      sent.push(command);
      return returningItem(command.funds_id);
    });
    const plain = await sendBack(fundsId);
    const explained = await sendBack(fundsId, { reason: 'Pago depois do vencimento' });
    expect(sent).toEqual([
      { funds_id: fundsId, reason: null },
      { funds_id: fundsId, reason: 'Pago depois do vencimento' },
    ]);
    expect(plain.status).toBe(200);
    expect(plain.body).toEqual({
      funds_id: fundsId,
      kind: 'late',
      rail: 'pix',
      reference: `E${'3'.repeat(31)}`,
      instruction: null,
      amount_brl: 42,
      amount_token: null,
      detected_at: '2030-01-02T03:04:05.000Z',
      status: 'returning',
      returned_by: 'operator',
      returned_at: null,
      payment_id: 'pay_abcdefghijklmnopqrstuvwx',
      business_id: h.merchant.business_id,
      amount_base_units: null,
      assigned_payment_id: null,
      assigned_at: null,
      return_reference: null,
      return_failure_reason: null,
      value_brl: 42,
      arrival_quote: null,
    });
    expect(explained.status).toBe(200);
  });

  test.each([
    ['NOT_FOUND', 404],
    ['INVALID_STATUS', 422],
  ] as const)(
    'the payment service refusing it with %s is answered %i with that code',
    async (code, status) => {
      h.fakes.on(returnHeldFunds, async () => {
        throw new CommandError(code, 'Recusado.');
      });
      const response = await sendBack(newPublicId('fund'));
      expect(response.status).toBe(status);
      expect(response.body).toEqual({ error: { code, message: 'Recusado.' } });
    },
  );

  test('bad ids, reasons and credentials are refused before any command is sent', async () => {
    const sent: unknown[] = [];
    h.fakes.on(returnHeldFunds, async (command) => {
      sent.push(command);
      return returningItem(command.funds_id);
    });
    expect((await sendBack('fund_short')).status).toBe(404);
    const long = await sendBack(newPublicId('fund'), { reason: 'x'.repeat(141) });
    expect(long.status).toBe(422);
    expect(long.body.error.code).toBe('INVALID_FIELDS');
    const notText = await sendBack(newPublicId('fund'), { reason: 12 });
    expect(notText.body.error.code).toBe('INVALID_FIELDS');
    expect((await sendBack(newPublicId('fund'), {}, 'not-the-admin-token')).status).toBe(401);
    expect(sent).toEqual([]);
  });
});
