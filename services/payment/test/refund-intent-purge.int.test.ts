import { createRefund, newPublicId } from '@gateway/contracts';
import { metricsRegistry } from '@gateway/observability';
import { testLogger } from '@gateway/testkit';
import { refundIntentPurge } from '../src/application/refund-intent-purge';
import { paymentServiceForTheseTests } from './support/harness';

describe("refund commands' finished intents are purged after their window", () => {
  const h = paymentServiceForTheseTests('payment-intent-purge');

  const purgeOf = (batchSize?: number) =>
    refundIntentPurge(h.service.dataSource, { retentionHours: 48, batchSize, logger: testLogger('purge') });

  async function intent(status: 'reserving' | 'opened' | 'given_up', ageHours: number): Promise<string> {
    const refundId = newPublicId('ref');
    await h.service.dataSource.query(
      `INSERT INTO refund_requests (refund_id, message_id, payment_id, amount_centavos, status, given_up_at, created_at)
       VALUES ($1, $2, $3, 100, $4, CASE WHEN $4 = 'given_up' THEN now() END, now() - make_interval(hours => $5))`,
      [refundId, newPublicId('msg'), newPublicId('pay'), status, ageHours],
    );
    return refundId;
  }

  const remaining = async (refundIds: string[]): Promise<string[]> =>
    (
      await h.service.dataSource.query(
        'SELECT refund_id FROM refund_requests WHERE refund_id = ANY($1) ORDER BY refund_id',
        [refundIds],
      )
    ).map((row: { refund_id: string }) => row.refund_id);

  const purgedCounted = async (): Promise<number> => {
    const metric = await metricsRegistry.getSingleMetric('payment_refund_intents_purged_total')?.get();
    return metric?.values[0]?.value ?? 0;
  };

  test('opened and given-up intents older than the window are deleted in batches and counted; reserving ones and younger ones stay', async () => {
    const old = [await intent('opened', 49), await intent('given_up', 72), await intent('opened', 24 * 30)];
    const kept = [
      await intent('reserving', 72),
      await intent('opened', 47),
      await intent('given_up', 1),
      await intent('reserving', 1),
    ];
    const countedBefore = await purgedCounted();
    const purge = purgeOf(2);

    let deleted = 0;
    for (let pass = await purge.runOnce(); pass > 0; pass = await purge.runOnce()) deleted += pass;

    expect(deleted).toBe(old.length);
    expect(await remaining([...old, ...kept])).toEqual([...kept].sort());
    expect(await purgedCounted()).toBe(countedBefore + old.length);
  });

  test('a refund command delivered again answers the same refund after a purge, within the window and after it', async () => {
    const businessId = await h.newBusiness();
    const paymentId = await h.paidPixPayment(businessId, 5000);
    const messageId = newPublicId('msg');
    const command = { business_id: businessId, payment_id: paymentId, amount_centavos: 900 };
    const first = await h.request(createRefund, command, { messageId });
    if (!first.ok) throw new Error(JSON.stringify(first.error));

    await purgeOf().runOnce();
    expect(await h.request(createRefund, command, { messageId })).toEqual(first);
    expect(await remaining([first.result.refund_id])).toEqual([first.result.refund_id]);

    // Its window over, the intent goes; a late delivery of the command is still answered the refund it opened.
    await h.service.dataSource.query(
      `UPDATE refund_requests SET created_at = now() - interval '49 hours' WHERE refund_id = $1`,
      [first.result.refund_id],
    );
    await purgeOf().runOnce();
    expect(await remaining([first.result.refund_id])).toEqual([]);
    expect(await h.request(createRefund, command, { messageId })).toEqual(first);
    const refunds = await h.service.dataSource.query(`SELECT id FROM refunds WHERE payment_id = $1`, [
      paymentId,
    ]);
    expect(refunds).toEqual([{ id: first.result.refund_id }]);
  });
});
