import { createRefund, pixRefundSettled } from '@gateway/contracts';
import { waitFor } from '@gateway/testkit';
import { paymentServiceForTheseTests } from './support/harness';
import { aRefundSettlement } from './support/rail-events';

describe('a refund whose request never reached its rail is asked again until the rail settles it', () => {
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

  const requestsFor = async (refundId: string): Promise<Array<Record<string, unknown>>> => {
    const rows: Array<{ payload: Record<string, unknown> }> = await h.service.dataSource.query(
      `SELECT envelope->'payload' AS payload FROM outbox
        WHERE name = 'pix.refund.requested.v1' AND envelope->'payload'->>'refund_id' = $1 ORDER BY seq`,
      [refundId],
    );
    return rows.map((row) => row.payload);
  };

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
});
