import { getBalance, newPublicId, type PaymentEventPayload } from '@gateway/contracts';
import { aPaymentEvent, aRefundEvent, testLogger, waitFor } from '@gateway/testkit';
import { postConfirmedPayment } from '../src/application/post-confirmed-payment';
import { postSucceededRefund } from '../src/application/post-succeeded-refund';
import { SettlementSweep } from '../src/application/settlement-sweep';
import { startLedgerService } from '../src/main';
import { ledgerServiceForTheseTests, type LedgerTestBed } from './support/ledger-service';

const DELAY_SECONDS = 3;

const paidEvent = (businessId: string, extra: Partial<PaymentEventPayload> = {}) => ({
  ...aPaymentEvent({
    business_id: businessId,
    method: 'pix',
    status: 'paid',
    amount_centavos: 10_000,
    fee_centavos: 100,
  }),
  ...extra,
});

async function balanceOf(bed: LedgerTestBed, businessId: string) {
  const reply = await bed.request(getBalance, { business_id: businessId });
  if (!reply.ok) throw new Error(JSON.stringify(reply.error));
  return reply.result;
}

async function statusOf(bed: LedgerTestBed, paymentId: string): Promise<string> {
  const [row] = await bed.sql<{ status: string }>(
    `SELECT status FROM balance_transactions WHERE type = 'payment' AND source_id = $1`,
    [paymentId],
  );
  return row!.status;
}

describe('settlement: pending becomes available at available_on', () => {
  const bed = ledgerServiceForTheseTests('ledger-settlement', {
    SETTLEMENT_DELAY_PIX: DELAY_SECONDS,
    SETTLEMENT_DELAY_CRYPTO: 3600,
    SETTLEMENT_SWEEP_INTERVAL_MS: 100,
  });

  test("a PIX payment's net stays pending until the delay is over, then is available once", async () => {
    const businessId = newPublicId('biz');
    const event = paidEvent(businessId);
    await bed.confirm(event);
    const availableOn = new Date(event.occurred_at).getTime() + DELAY_SECONDS * 1000;

    // Read before the delay is over (the posting is handled well within it).
    expect(Date.now()).toBeLessThan(availableOn);
    expect(await balanceOf(bed, businessId)).toMatchObject({
      pending_centavos: 9_900,
      available_centavos: 0,
    });
    expect(await statusOf(bed, event.payment.payment_id)).toBe('pending');

    const settled = await waitFor(
      async () => {
        const balance = await balanceOf(bed, businessId);
        return balance.available_centavos === 9_900 ? balance : undefined;
      },
      { what: 'the payment settled' },
    );
    expect(Date.now()).toBeGreaterThanOrEqual(availableOn);
    expect(settled.pending_centavos).toBe(0);
    expect(await statusOf(bed, event.payment.payment_id)).toBe('available');
    const [bt] = await bed.sql<{ available_on: Date }>(
      `SELECT available_on FROM balance_transactions WHERE source_id = $1`,
      [event.payment.payment_id],
    );
    expect(bt!.available_on.getTime()).toBe(availableOn);
  });

  test('what fell due while the service was down settles when it starts again', async () => {
    const businessId = newPublicId('biz');
    const event = paidEvent(businessId);
    await bed.confirm(event);
    const availableOn = new Date(event.occurred_at).getTime() + DELAY_SECONDS * 1000;
    await bed.service.stop();
    // Down until the payment is due; then started again with a sweep that would not come round for an hour.
    await waitFor(() => Date.now() >= availableOn, { what: 'the settlement due' });
    bed.service = await startLedgerService({ ...bed.ledgerConfig, SETTLEMENT_SWEEP_INTERVAL_MS: 3_600_000 });

    await waitFor(async () => (await balanceOf(bed, businessId)).available_centavos === 9_900, {
      what: 'the payment settled by the sweep at start',
    });
    expect(await statusOf(bed, event.payment.payment_id)).toBe('available');
  }, 30_000);

  test("a payment refunded before it settled never makes another payment's money available early", async () => {
    const businessId = newPublicId('biz');
    const deps = {
      dataSource: bed.service.dataSource,
      delays: { pix: DELAY_SECONDS, crypto: 3600 },
      logger: bed.service.logger,
    };
    // Crypto settles after an hour: the first paid two hours ago (due), the second half an hour ago (not yet).
    const paidAgo = (minutes: number) => {
      const event = aPaymentEvent({
        business_id: businessId,
        method: 'crypto',
        token: 'usdc',
        status: 'paid',
        amount_centavos: 1_000,
        fee_centavos: 10,
      });
      return { ...event, occurred_at: new Date(Date.now() - minutes * 60_000).toISOString() };
    };
    const [due, notDue] = [paidAgo(120), paidAgo(30)];
    // Posted and refunded straight through the use cases, before any sweep: the service's own sweeps are left out.
    const sweep = new SettlementSweep(bed.service.dataSource, {
      intervalMs: 3_600_000,
      logger: testLogger('sweep'),
    });
    await bed.service.settlement.stop();
    try {
      for (const event of [due, notDue]) await postConfirmedPayment(deps, event);
      const refund = aRefundEvent({
        business_id: businessId,
        payment_id: due.payment.payment_id,
        method: 'crypto',
        status: 'succeeded',
        amount_centavos: 990,
      });
      await postSucceededRefund({ dataSource: bed.service.dataSource, logger: testLogger('refund') }, refund);
      expect(await balanceOf(bed, businessId)).toMatchObject({
        pending_centavos: 990,
        available_centavos: 0,
      });

      await sweep.runOnce();
      // The refunded payment had nothing left to move; the other's 9.90 waits for its own time.
      expect(await balanceOf(bed, businessId)).toMatchObject({
        pending_centavos: 990,
        available_centavos: 0,
      });
      expect(await statusOf(bed, due.payment.payment_id)).toBe('available');
      expect(await statusOf(bed, notDue.payment.payment_id)).toBe('pending');
      const settles = await bed.sql(`SELECT 1 FROM journals WHERE cause_key = $1`, [
        `settle:${due.payment.payment_id}`,
      ]);
      expect(settles).toHaveLength(0);
    } finally {
      bed.service.settlement.start();
    }
  });

  test('sweeps running at once (two replicas) settle each due payment once (many tries)', async () => {
    // Two businesses, their payments interleaved: each sweep locks both balances.
    const businesses = [newPublicId('biz'), newPublicId('biz')];
    // Paid two hours ago with a crypto delay of one hour: due already, and posted straight into the use case.
    const paidAt = new Date(Date.now() - 2 * 3600_000).toISOString();
    const deps = {
      dataSource: bed.service.dataSource,
      delays: { pix: DELAY_SECONDS, crypto: 3600 },
      logger: bed.service.logger,
    };
    const sweeps = [0, 1, 2].map(
      () =>
        new SettlementSweep(bed.service.dataSource, {
          intervalMs: 3_600_000,
          logger: testLogger('sweep'),
          batchSize: 3,
        }),
    );
    const paymentIds: string[] = [];
    for (let round = 0; round < 10; round += 1) {
      const events = Array.from({ length: 4 }, (_, i) => {
        const event = aPaymentEvent({
          business_id: businesses[(i + round) % 2]!,
          method: 'crypto',
          token: 'usdc',
          status: 'paid',
          amount_centavos: 1_000,
          fee_centavos: 10,
        });
        return { ...event, occurred_at: paidAt };
      });
      for (const event of events) await postConfirmedPayment(deps, event);
      paymentIds.push(...events.map((event) => event.payment.payment_id));
      await Promise.all(sweeps.flatMap((sweep) => [sweep.runOnce(), sweep.runOnce()]));
    }
    // Whatever a batch left, the service's own sweep takes.
    bed.service.settlement.nudge();
    for (const businessId of businesses)
      await waitFor(async () => (await balanceOf(bed, businessId)).available_centavos === 20 * 990, {
        what: 'every payment settled',
      });

    const settles = await bed.sql<{ cause_key: string; n: string }>(
      `SELECT cause_key, count(*) AS n FROM journals WHERE cause_key = ANY($1) GROUP BY cause_key`,
      [paymentIds.map((id) => `settle:${id}`)],
    );
    expect(settles).toHaveLength(40);
    expect(settles.every((row) => row.n === '1')).toBe(true);
    for (const businessId of businesses) {
      expect(await balanceOf(bed, businessId)).toMatchObject({
        pending_centavos: 0,
        available_centavos: 19_800,
      });
      const [sums] = await bed.sql<{ entries: string }>(
        `SELECT sum(e.amount_centavos) AS entries FROM entries e WHERE e.business_id = $1 AND e.account = 'available'`,
        [businessId],
      );
      expect(sums!.entries).toBe('-19800');
    }
  }, 60_000);
});
