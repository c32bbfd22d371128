import { cryptoRequestClosed, type Reply, type RevisedCryptoRequest } from '@gateway/contracts';
import { letTimePass, waitFor } from '@gateway/testkit';
import { WatcherHarness } from './support/watcher';

describe('an amount change racing the end of the window or a transfer', () => {
  const harness = WatcherHarness.forTheseTests();

  const requestsOf = (
    paymentId: string,
  ): Promise<Array<{ reference: string; status: string; created_at: Date }>> =>
    harness.service.dataSource.query(
      'SELECT reference, status, created_at FROM payment_requests WHERE payment_id = $1 ORDER BY created_at',
      [paymentId],
    );

  const closedEventsOf = async (reference: string): Promise<number> => {
    const rows: unknown[] = await harness.service.dataSource.query(
      `SELECT 1 FROM outbox WHERE name = $1 AND envelope->'payload'->>'reference' = $2`,
      [cryptoRequestClosed.name, reference],
    );
    return rows.length;
  };

  test('either the change wins inside the window and carries what was received, or it is refused and the request closes underpaid (many tries)', async () => {
    const outcomes = { changed: 0, refused: 0 };
    const attempts = 16;
    for (let attempt = 0; attempt < attempts; attempt += 1) {
      const original = await harness.open({ amount_centavos: 10_000 });
      const half = BigInt(original.amount_base_units) / 2n;
      await harness.pay(original.reference, half);
      await harness.waitForTransfers(original.reference, 1);
      // The change is sent from 900 ms before the window's end to 300 ms after it, in even steps: the first
      // tries land inside the window even on a loaded machine, the last ones surely after it, and those near
      // the end race it.
      const windowEnd = new Date(Date.now() + 1_000);
      const sendOffset = -900 + Math.round((attempt * 1_200) / (attempts - 1));
      await harness.service.dataSource.query(
        'UPDATE payment_requests SET expires_at = $2 WHERE reference = $1',
        [original.reference, windowEnd],
      );
      await letTimePass(Math.max(0, windowEnd.getTime() + sendOffset - Date.now()));
      const reply: Reply<RevisedCryptoRequest> = await harness.changeAmount(original.payment_id, 12_000);

      if (reply.ok) {
        outcomes.changed += 1;
        expect(reply.result.superseded).toEqual({
          reference: original.reference,
          received_base_units: half.toString(),
        });
        const [old, revised] = await requestsOf(original.payment_id);
        expect(old).toMatchObject({ reference: original.reference, status: 'superseded' });
        expect(revised).toMatchObject({ reference: reply.result.reference, status: 'open' });
        // The change happened while the old window was still open: nothing expired was reopened.
        expect(revised!.created_at.getTime()).toBeLessThan(windowEnd.getTime());
        // A detection pass begun once the old window (and its grace) had ended closed nothing.
        const closesAt = windowEnd.getTime() + harness.config.CONFIRMATION_GRACE_MS;
        await waitFor(() => Date.now() > closesAt, { what: 'the old window to end' });
        await harness.nextFullScan();
        expect(await closedEventsOf(original.reference)).toBe(0);
      } else {
        outcomes.refused += 1;
        expect(reply.error.code).toBe('INVALID_STATUS');
        const closed = await harness.closed(original.payment_id);
        expect(closed.payload).toMatchObject({
          reference: original.reference,
          reason: 'underpaid',
          received_base_units: half.toString(),
        });
        expect(await requestsOf(original.payment_id)).toEqual([
          expect.objectContaining({ reference: original.reference, status: 'underpaid' }),
        ]);
      }
    }
    // The send times straddle the window's end, so both orders happen.
    expect(outcomes.changed).toBeGreaterThan(0);
    expect(outcomes.refused).toBeGreaterThan(0);
  }, 90_000);

  test('a transfer that landed just before the change counts for the old request: in full it settles and the change is refused, a part is carried over (many tries)', async () => {
    for (let attempt = 0; attempt < 16; attempt += 1) {
      const full = attempt % 2 === 0;
      const original = await harness.open({ amount_centavos: 5_000 });
      const amount = BigInt(original.amount_base_units);
      const sent = full ? amount : (amount * 2n) / 5n;
      const signature = await harness.pay(original.reference, sent);
      // The detector polls every 100 ms: sometimes it finds the transfer first, mostly the change comes first.
      await letTimePass(Math.floor(Math.random() * 120));
      const reply: Reply<RevisedCryptoRequest> = await harness.changeAmount(original.payment_id, 6_000);

      expect(await harness.transfers(original.reference)).toEqual([
        expect.objectContaining({ signature, amount: sent.toString(), applied_to: 'payment' }),
      ]);
      if (full) {
        expect(reply).toMatchObject({ ok: false, error: { code: 'INVALID_STATUS' } });
        expect(await requestsOf(original.payment_id)).toEqual([
          expect.objectContaining({ reference: original.reference, status: 'settled' }),
        ]);
        const settled = await harness.settled(original.payment_id);
        expect(settled.payload).toMatchObject({ reference: original.reference, signature });
      } else {
        if (!reply.ok) throw new Error(`change refused: ${reply.error.code} ${reply.error.message}`);
        expect(reply.result.superseded).toEqual({
          reference: original.reference,
          received_base_units: sent.toString(),
        });
        expect((await requestsOf(original.payment_id)).map((request) => request.status)).toEqual([
          'superseded',
          'open',
        ]);
      }
    }
  });
});
