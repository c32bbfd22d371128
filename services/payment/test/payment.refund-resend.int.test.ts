import {
  createRefund,
  pixChargePaid,
  pixFundsReturnSettled,
  pixRefundSettled,
  returnHeldFunds,
  type FundsReturnRequested,
} from '@gateway/contracts';
import { waitFor } from '@gateway/testkit';
import { paymentServiceForTheseTests } from './support/harness';
import { aPixChargePaid, aRefundSettlement } from './support/rail-events';

describe('a refund (or an operator return) whose request or outcome was lost is asked of its rail again until it settles', () => {
  const h = paymentServiceForTheseTests('payment-refund-resend', {
    REFUND_RESEND_AFTER_SECONDS: '1',
    RECONCILE_INTERVAL_SECONDS: '1',
  });

  const openRefund = async (businessId: string, paymentId: string): Promise<string> => {
    const reply = await h.request(createRefund, {
      business_id: businessId,
      payment_id: paymentId,
      amount_centavos: 1000,
    });
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    return reply.result.refund_id;
  };

  const requestsOf = async <P = Record<string, unknown>>(
    name: string,
    field: string,
    id: string,
  ): Promise<P[]> => {
    const rows: Array<{ payload: P }> = await h.service.dataSource.query(
      `SELECT envelope->'payload' AS payload FROM outbox WHERE name = $1 AND envelope->'payload'->>$2 = $3
        ORDER BY seq`,
      [name, field, id],
    );
    return rows.map((row) => row.payload);
  };
  const requestsFor = (refundId: string) => requestsOf('pix.refund.requested.v1', 'refund_id', refundId);

  test('a pending refund is asked again with the same terms; a settled one never again', async () => {
    const businessId = await h.newBusiness();
    const first = await openRefund(businessId, await h.paidPixPayment(businessId, 5000));
    const asked = await waitFor(
      async () => ((await requestsFor(first)).length >= 2 ? requestsFor(first) : undefined),
      {
        what: 'the refund asked again',
      },
    );
    expect(asked[1]).toEqual(asked[0]);

    await h.client.publish(
      pixRefundSettled,
      aRefundSettlement(
        { refund_id: first, payment_id: asked[0]!.payment_id as string },
        { external_id: 'D1' },
      ),
    );
    await waitFor(
      async () =>
        (
          await h.service.dataSource.query(`SELECT 1 FROM refunds WHERE id = $1 AND status = 'succeeded'`, [
            first,
          ])
        ).length === 1,
      { what: 'the refund settled' },
    );
    const askedBeforeSettling = (await requestsFor(first)).length;
    // Another pending refund asked again proves passes ran after the settlement.
    const second = await openRefund(businessId, await h.paidPixPayment(businessId, 5000));
    await waitFor(async () => (await requestsFor(second)).length >= 2, { what: 'a later pass' });
    expect((await requestsFor(first)).length).toBe(askedBeforeSettling);
  });

  test("an operator's return of held funds still in flight is asked again with the same attempt and reason; once settled, never again", async () => {
    const businessId = await h.newBusiness();
    const view = await h.createPayment(businessId, { amount_centavos: 4000 });
    await h.client.publish(pixChargePaid, aPixChargePaid(view.payment, { amount_centavos: 4700 }));
    const fundsId = await waitFor(async () => {
      const rows: Array<{ funds_id: string }> = await h.service.dataSource.query(
        `SELECT funds_id FROM received_funds WHERE payment_id = $1 AND kind = 'excess'`,
        [view.payment.payment_id],
      );
      return rows[0]?.funds_id;
    });
    const sent = await h.request(returnHeldFunds, { funds_id: fundsId, reason: 'Pago a mais' });
    if (!sent.ok) throw new Error(JSON.stringify(sent.error));
    const returnRequests = () =>
      requestsOf<FundsReturnRequested>('pix.funds-return.requested.v1', 'funds_id', fundsId);
    const asked = await waitFor(async () => {
      const requests = await returnRequests();
      return requests.length >= 2 ? requests : undefined;
    });
    expect(asked[0]).toMatchObject({ amount_centavos: 700, reason: 'Pago a mais' });
    expect(asked[1]).toEqual(asked[0]);

    await h.client.publish(pixFundsReturnSettled, {
      return_id: asked[0]!.return_id,
      funds_id: fundsId,
      outcome: 'succeeded',
      external_id: 'D2',
      failure_reason: null,
    });
    await waitFor(
      async () =>
        (
          await h.service.dataSource.query(
            `SELECT 1 FROM received_funds WHERE funds_id = $1 AND returned_at IS NOT NULL`,
            [fundsId],
          )
        ).length === 1,
      { what: 'the return settled' },
    );
    const askedBeforeSettling = (await returnRequests()).length;
    // A pending refund asked again proves passes ran after the settlement.
    const refund = await openRefund(businessId, await h.paidPixPayment(businessId, 5000));
    await waitFor(async () => (await requestsFor(refund)).length >= 2, { what: 'a later pass' });
    expect((await returnRequests()).length).toBe(askedBeforeSettling);
  });
});
