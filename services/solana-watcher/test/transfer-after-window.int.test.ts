import { cryptoRequestClosed } from '@gateway/contracts';
import { waitFor } from '@gateway/testkit';
import { UnappliedTransfers } from './support/unapplied-transfers';
import { WatcherHarness } from './support/watcher';

describe('a transfer is judged by when its block landed, not by when the watcher saw it', () => {
  const harness = WatcherHarness.forTheseTests();
  const unapplied = UnappliedTransfers.forTheseTests(harness);

  const moveWindowEnd = (reference: string, expiresAt: Date) =>
    harness.service.dataSource.query(`UPDATE payment_requests SET expires_at = $2 WHERE reference = $1`, [
      reference,
      expiresAt,
    ]);

  test('while the watcher is down, transfers landing after the window are late funds and those before it pay (several rounds)', async () => {
    for (let round = 0; round < 3; round += 1) {
      const requests = await Promise.all(Array.from({ length: 6 }, () => harness.open()));
      // The windows end a little after the watcher stops; it comes back only once they have all passed.
      const windowEnd = new Date(Date.now() + 2500);
      for (const request of requests) await moveWindowEnd(request.reference, windowEnd);
      const inTime = requests.filter((_, index) => index % 2 === 0);
      const late = requests.filter((_, index) => index % 2 === 1);
      const signatures = new Map<string, string>();
      await harness.restart(async () => {
        for (const request of inTime)
          signatures.set(
            request.reference,
            await harness.pay(request.reference, BigInt(request.amount_base_units)),
          );
        await waitFor(() => Date.now() >= windowEnd.getTime() + 1000, { what: 'the windows to pass' });
        for (const request of late)
          signatures.set(
            request.reference,
            await harness.pay(request.reference, BigInt(request.amount_base_units)),
          );
      });

      for (const request of inTime) {
        const settled = await harness.settled(request.payment_id);
        expect(settled.payload).toMatchObject({ signature: signatures.get(request.reference) });
        expect((await harness.request(request.reference)).status).toBe('settled');
      }
      for (const request of late) {
        const closed = await harness.closed(request.payment_id);
        expect(closed.payload).toMatchObject({ reason: 'expired', received_base_units: '0' });
        const report = await unapplied.first(
          request.payment_id,
          `the late transfer of ${request.payment_id}`,
        );
        expect(report).toMatchObject({
          reference: request.reference,
          signature: signatures.get(request.reference),
          amount_base_units: request.amount_base_units,
          reason: 'after_expiry',
        });
        expect(await harness.transfers(request.reference)).toEqual([
          expect.objectContaining({ signature: signatures.get(request.reference), applied_to: 'late' }),
        ]);
        expect(await harness.request(request.reference)).toMatchObject({
          status: 'expired',
          received_base_units: '0',
        });
        expect(harness.eventsFor(request.payment_id).map((event) => event.name)).toEqual([
          cryptoRequestClosed.name,
        ]);
      }
    }
  });
});
