import {
  createRefund,
  cryptoRefundSettled,
  cryptoRequestSettled,
  listReceivedFunds,
  newPublicId,
  returnReceivedFunds,
  type Reply,
  type ReceivedFundsItem,
  type RefundRecord,
  type RefundRequested,
} from '@gateway/contracts';
import { waitFor } from '@gateway/testkit';
import { paymentServiceForTheseTests } from './support/harness';
import { aCryptoRequestSettled, aRefundSettlement } from './support/rail-events';

// An overpayment's excess goes back to the payer once: with the refund that completes the payment's refunds, or by
// hand, never both. The payment service decides it under the payment's lock and the database refuses a second return.
describe('received funds are returned once: by a refund or by hand', () => {
  const h = paymentServiceForTheseTests('payment-funds-returned-once');

  /** A crypto payment of R$ 100 priced at 1 000 000 base units, paid with 1 250 000: 250 000 kept as excess. */
  const overpaid = async (businessId: string) => {
    const view = await h.createPayment(businessId, {
      method: 'crypto',
      token: 'usdc',
      amount_centavos: 10_000,
    });
    const paymentId = view.payment.payment_id;
    await h.client.publish(
      cryptoRequestSettled,
      aCryptoRequestSettled(view.payment, { received_base_units: '1250000', excess_base_units: '250000' }),
    );
    const [excess] = await waitFor(async () => {
      const funds = await fundsOf(businessId, paymentId);
      return funds.length > 0 ? funds : undefined;
    });
    await h.waitForPaymentStatus(businessId, paymentId, 'paid');
    return { paymentId, excess: excess! };
  };

  const fundsOf = async (businessId: string, paymentId: string): Promise<ReceivedFundsItem[]> => {
    const reply = await h.request(listReceivedFunds, { business_id: businessId, payment_id: paymentId });
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    return reply.result.data;
  };

  const refund = (businessId: string, paymentId: string, amount?: number, messageId?: string) =>
    h.request(
      createRefund,
      { business_id: businessId, payment_id: paymentId, amount_centavos: amount ?? null },
      { messageId },
    );

  const refundOk = async (businessId: string, paymentId: string, amount?: number): Promise<RefundRecord> => {
    const reply = await refund(businessId, paymentId, amount);
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    return reply.result;
  };

  const returnByHand = (businessId: string, paymentId: string, fundsId: string, messageId?: string) =>
    h.request(
      returnReceivedFunds,
      { business_id: businessId, payment_id: paymentId, funds_id: fundsId },
      { messageId },
    );

  /** The crypto refund requests written to the outbox for the payment, in order. */
  const railRequests = async (paymentId: string): Promise<RefundRequested[]> => {
    const rows: Array<{ payload: RefundRequested }> = await h.service.dataSource.query(
      `SELECT envelope->'payload' AS payload FROM outbox
        WHERE name = 'crypto.refund.requested.v1' AND envelope->'payload'->>'payment_id' = $1 ORDER BY seq`,
      [paymentId],
    );
    return rows.map((row) => row.payload);
  };

  const settle = async (record: RefundRecord, outcome: 'succeeded' | 'failed') => {
    await h.waitForHandled([
      await h.publishEvent(
        cryptoRefundSettled,
        aRefundSettlement(record, {
          outcome,
          failure_reason: outcome === 'failed' ? 'A transação falhou na rede.' : null,
        }),
      ),
    ]);
  };

  const excessOf = (excess: ReceivedFundsItem) => ({
    funds_id: excess.funds_id,
    amount_centavos: null,
    amount_base_units: '250000',
  });

  test('a full refund carries the excess: returning while in flight, returned once it succeeded, never again by hand', async () => {
    const businessId = await h.newBusiness();
    const { paymentId, excess } = await overpaid(businessId);
    expect(excess).toMatchObject({ kind: 'excess', status: 'held', returned_by: null, returned_at: null });

    const full = await refundOk(businessId, paymentId);
    expect(full).toMatchObject({ amount_centavos: 10_000, returned_funds_id: excess.funds_id });
    expect(await railRequests(paymentId)).toEqual([
      expect.objectContaining({
        refund_id: full.refund_id,
        amount_centavos: 10_000,
        excess: excessOf(excess),
      }),
    ]);
    expect(await fundsOf(businessId, paymentId)).toEqual([
      { ...excess, status: 'returning', returned_by: full.refund_id, returned_at: null },
    ]);
    expect(await returnByHand(businessId, paymentId, excess.funds_id)).toEqual({
      ok: false,
      error: { code: 'INVALID_STATUS', message: expect.stringContaining(full.refund_id) },
    });

    await settle(full, 'succeeded');
    const [returned] = await fundsOf(businessId, paymentId);
    expect(returned).toEqual({
      ...excess,
      status: 'returned',
      returned_by: full.refund_id,
      returned_at: expect.any(String),
    });
    expect(await returnByHand(businessId, paymentId, excess.funds_id)).toMatchObject({
      ok: false,
      error: { code: 'INVALID_STATUS' },
    });
  });

  test('a refund that fails gives the excess back: held again, then returned by hand, and a later full refund returns only the price', async () => {
    const businessId = await h.newBusiness();
    const { paymentId, excess } = await overpaid(businessId);
    const failing = await refundOk(businessId, paymentId);
    await settle(failing, 'failed');
    expect((await fundsOf(businessId, paymentId))[0]).toMatchObject({ status: 'held', returned_by: null });

    const byHand = await returnByHand(businessId, paymentId, excess.funds_id);
    expect(byHand).toEqual({
      ok: true,
      result: { ...excess, status: 'returned', returned_by: 'manual', returned_at: expect.any(String) },
    });
    const full = await refundOk(businessId, paymentId);
    expect(full).toMatchObject({ amount_centavos: 10_000, returned_funds_id: null });
    const requests = await railRequests(paymentId);
    expect(requests).toHaveLength(2);
    expect(requests[1]).toEqual({
      refund_id: full.refund_id,
      payment_id: paymentId,
      amount_centavos: 10_000,
      payment_amount_centavos: 10_000,
      reason: null,
    });
    await settle(full, 'succeeded');
    expect((await fundsOf(businessId, paymentId))[0]).toEqual(byHand.ok && byHand.result);
  });

  test('partial refunds leave the excess held; the one that completes the refunds carries it', async () => {
    const businessId = await h.newBusiness();
    const { paymentId, excess } = await overpaid(businessId);
    const first = await refundOk(businessId, paymentId, 4_000);
    expect(first.returned_funds_id).toBeNull();
    expect((await fundsOf(businessId, paymentId))[0]).toMatchObject({ status: 'held' });
    const rest = await refundOk(businessId, paymentId);
    expect(rest).toMatchObject({ amount_centavos: 6_000, returned_funds_id: excess.funds_id });
    expect((await railRequests(paymentId)).map((request) => request.excess ?? null)).toEqual([
      null,
      excessOf(excess),
    ]);
  });

  test('a return by hand answers the same on redelivery; twice, another business or another payment is refused', async () => {
    const businessId = await h.newBusiness();
    const { paymentId, excess } = await overpaid(businessId);
    const other = await overpaid(businessId);
    const stranger = await h.newBusiness();
    expect(await returnByHand(stranger, paymentId, excess.funds_id)).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND' },
    });
    expect(await returnByHand(businessId, other.paymentId, excess.funds_id)).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND' },
    });
    expect(await returnByHand(businessId, paymentId, newPublicId('fund'))).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND' },
    });
    const messageId = newPublicId('cmd');
    const first = await returnByHand(businessId, paymentId, excess.funds_id, messageId);
    expect(first).toMatchObject({ ok: true, result: { status: 'returned', returned_by: 'manual' } });
    expect(await returnByHand(businessId, paymentId, excess.funds_id, messageId)).toEqual(first);
    expect(await returnByHand(businessId, paymentId, excess.funds_id)).toEqual({
      ok: false,
      error: { code: 'INVALID_STATUS', message: 'Estes fundos já foram devolvidos manualmente.' },
    });
  });

  test('a refund command delivered twice opens one refund, which carries the excess once', async () => {
    const businessId = await h.newBusiness();
    const { paymentId, excess } = await overpaid(businessId);
    const messageId = newPublicId('cmd');
    const [one, two] = await Promise.all([
      refund(businessId, paymentId, undefined, messageId),
      refund(businessId, paymentId, undefined, messageId),
    ]);
    expect(one).toEqual(two);
    expect(one).toMatchObject({ ok: true, result: { returned_funds_id: excess.funds_id } });
    expect(await railRequests(paymentId)).toHaveLength(1);
  });

  test('the database refuses a second return, a refund carrying funds not held, and forgetting funds', async () => {
    const businessId = await h.newBusiness();
    const { paymentId, excess } = await overpaid(businessId);
    const query = (sql: string, parameters: unknown[]) => h.service.dataSource.query(sql, parameters);
    const refused = { driverError: { code: '23514' } };
    const full = await refundOk(businessId, paymentId);
    for (const [sql, parameters] of [
      [
        `UPDATE received_funds SET returned_by = 'manual', returned_at = now() WHERE funds_id = $1`,
        [excess.funds_id],
      ],
      [`UPDATE received_funds SET returned_by = NULL WHERE funds_id = $1`, [excess.funds_id]],
      [`UPDATE received_funds SET returned_at = now() WHERE funds_id = $1`, [excess.funds_id]],
      [`UPDATE received_funds SET amount_base_units = '1' WHERE funds_id = $1`, [excess.funds_id]],
      [`DELETE FROM received_funds WHERE funds_id = $1`, [excess.funds_id]],
      [`UPDATE refunds SET returned_funds_id = NULL WHERE id = $1`, [full.refund_id]],
      [
        `INSERT INTO refunds (id, payment_id, business_id, method, amount_centavos, status, created_at, updated_at,
                              returned_funds_id)
         VALUES ($1, $2, $3, 'crypto', 1, 'pending', now(), now(), $4)`,
        [newPublicId('ref'), paymentId, businessId, excess.funds_id],
      ],
    ] as Array<[string, unknown[]]>)
      await expect(query(sql, parameters)).rejects.toMatchObject(refused);

    await settle(full, 'failed');
    const other = await overpaid(businessId);
    // A refund may not carry another payment's excess, nor may funds name a refund that does not carry them.
    await expect(
      query(
        `INSERT INTO refunds (id, payment_id, business_id, method, amount_centavos, status, created_at, updated_at,
                              returned_funds_id)
         VALUES ($1, $2, $3, 'crypto', 1, 'pending', now(), now(), $4)`,
        [newPublicId('ref'), paymentId, businessId, other.excess.funds_id],
      ),
    ).rejects.toMatchObject(refused);
    const partial = await refundOk(businessId, paymentId, 100);
    await expect(
      query(`UPDATE received_funds SET returned_by = $2 WHERE funds_id = $1`, [
        excess.funds_id,
        partial.refund_id,
      ]),
    ).rejects.toMatchObject(refused);
    await query(`UPDATE received_funds SET returned_by = 'manual', returned_at = now() WHERE funds_id = $1`, [
      excess.funds_id,
    ]);
    await expect(
      query(`UPDATE received_funds SET returned_by = NULL, returned_at = NULL WHERE funds_id = $1`, [
        excess.funds_id,
      ]),
    ).rejects.toMatchObject(refused);
  });

  test('a full refund racing a return by hand: the excess goes back exactly once, whichever wins, 25 times', async () => {
    const businessId = await h.newBusiness();
    const outcomes = { refund: 0, byHand: 0 };
    for (let attempt = 0; attempt < 25; attempt += 1) {
      const { paymentId, excess } = await overpaid(businessId);
      const [refunded, byHand]: [Reply<RefundRecord>, Reply<ReceivedFundsItem>] = await Promise.all([
        refund(businessId, paymentId),
        returnByHand(businessId, paymentId, excess.funds_id),
      ]);
      // The refund is never refused for the race: it returns the price either way.
      if (!refunded.ok) throw new Error(JSON.stringify(refunded.error));
      const requests = await railRequests(paymentId);
      expect(requests).toHaveLength(1);
      const [funds] = await fundsOf(businessId, paymentId);
      if (byHand.ok) {
        outcomes.byHand += 1;
        expect(refunded.result.returned_funds_id).toBeNull();
        expect(requests[0]!.excess).toBeUndefined();
        expect(funds).toMatchObject({ status: 'returned', returned_by: 'manual' });
      } else {
        outcomes.refund += 1;
        expect(byHand.error.code).toBe('INVALID_STATUS');
        expect(refunded.result.returned_funds_id).toBe(excess.funds_id);
        expect(requests[0]!.excess).toEqual(excessOf(excess));
        expect(funds).toMatchObject({ status: 'returning', returned_by: refunded.result.refund_id });
      }
    }
    expect(outcomes.refund + outcomes.byHand).toBe(25);
  });
});
