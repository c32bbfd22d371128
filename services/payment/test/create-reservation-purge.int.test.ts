import { createPayment, newPublicId } from '@gateway/contracts';
import { metricsRegistry } from '@gateway/observability';
import { testLogger } from '@gateway/testkit';
import { createReservationPurge } from '../src/application/create-reservation-purge';
import { aCreatePayment, paymentServiceForTheseTests } from './support/harness';

describe('create reservations are purged after their window', () => {
  const h = paymentServiceForTheseTests('payment-purge');

  async function reserve(ageHours: number): Promise<string> {
    const messageId = newPublicId('cmd');
    await h.service.dataSource.query(
      `INSERT INTO payment_create_requests (message_id, payment_id, created_at)
       VALUES ($1, $2, now() - make_interval(hours => $3))`,
      [messageId, newPublicId('pay'), ageHours],
    );
    return messageId;
  }

  const remaining = async (messageIds: string[]): Promise<string[]> =>
    (
      await h.service.dataSource.query(
        'SELECT message_id FROM payment_create_requests WHERE message_id = ANY($1) ORDER BY message_id',
        [messageIds],
      )
    ).map((row: { message_id: string }) => row.message_id);

  /** What the service's metric says it purged so far. */
  const purgedCounted = async (): Promise<number> => {
    const metric = await metricsRegistry.getSingleMetric('payment_create_reservations_purged_total')?.get();
    return metric?.values[0]?.value ?? 0;
  };

  test('reservations older than the window are deleted in batches and counted; younger ones stay', async () => {
    const old = [await reserve(49), await reserve(72), await reserve(24 * 30)];
    const fresh = [await reserve(47), await reserve(1)];
    const countedBefore = await purgedCounted();
    const purge = createReservationPurge(h.service.dataSource, {
      retentionHours: 48,
      batchSize: 2,
      logger: testLogger('purge'),
    });

    let deleted = 0;
    for (let pass = await purge.runOnce(); pass > 0; pass = await purge.runOnce()) deleted += pass;

    expect(deleted).toBe(old.length);
    expect(await remaining([...old, ...fresh])).toEqual([...fresh].sort());
    expect(await purgedCounted()).toBe(countedBefore + old.length);
  });

  test('a create retried within the window still finds its reservation after a purge', async () => {
    const businessId = await h.newBusiness();
    const messageId = newPublicId('cmd');
    const reply = await h.request(createPayment, aCreatePayment(businessId), { messageId });
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    await createReservationPurge(h.service.dataSource, {
      retentionHours: 48,
      logger: testLogger('purge'),
    }).runOnce();

    const retried = await h.request(createPayment, aCreatePayment(businessId), { messageId });

    expect(retried).toEqual(reply);
    expect(await remaining([messageId])).toEqual([messageId]);
  });
});
