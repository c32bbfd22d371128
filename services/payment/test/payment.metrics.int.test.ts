import {
  cancelPayment,
  createRefund,
  newPublicId,
  pixChargePaid,
  pixRefundSettled,
  type PaymentView,
} from '@gateway/contracts';
import { metricsRegistry } from '@gateway/observability';
import { waitFor } from '@gateway/testkit';
import {
  create,
  newBusiness,
  publishEvent,
  startHarness,
  waitForHandled,
  waitForPaymentStatus,
  type Harness,
} from './support/harness';

/** The value of one series of this process's registry (the service runs in it), 0 when it has none yet. */
async function metric(name: string, labels: Record<string, string>): Promise<number> {
  const found = await metricsRegistry.getSingleMetric(name)?.get();
  // A histogram's count is its `_count` sample; a counter's or gauge's samples carry no name of their own.
  const sample = found?.values.find(
    (value) =>
      [name, `${name}_count`].includes((value as { metricName?: string }).metricName ?? name) &&
      Object.entries(labels).every(([label, wanted]) => value.labels[label] === wanted),
  );
  return sample?.value ?? 0;
}

describe('payment metrics: each transition counted once, after it commits', () => {
  let h: Harness;

  beforeAll(async () => {
    // The stuck-payments gauge is refreshed every reconciliation interval.
    h = await startHarness('payment-metrics', { RECONCILE_INTERVAL_SECONDS: '1' });
  });

  afterAll(() => h.close());

  const endToEndId = () =>
    `E${newPublicId('e')
      .replace(/[^A-Za-z0-9]/g, '')
      .slice(0, 31)
      .padEnd(31, '0')}`;

  const pixPaid = (view: PaymentView) => ({
    payment_id: view.payment.payment_id,
    txid: view.payment.external_id!,
    end_to_end_id: endToEndId(),
    amount_centavos: view.payment.amount_centavos,
    paid_at: new Date().toISOString(),
  });

  test('a PIX payment created and confirmed counts created and confirmed once each, and times created -> confirmed, however often the PIX is reported', async () => {
    const businessId = await newBusiness(h.client);
    const created = await metric('payment_events_total', { method: 'pix', event: 'created' });
    const confirmed = await metric('payment_events_total', { method: 'pix', event: 'confirmed' });
    const timed = await metric('payment_created_to_confirmed_seconds', { method: 'pix' });

    const view = await create(h.client, businessId);
    expect(await metric('payment_events_total', { method: 'pix', event: 'created' })).toBe(created + 1);
    // The same report twice (a redelivery), and the same PIX reported again under another message id.
    const paid = pixPaid(view);
    const first = await publishEvent(h, pixChargePaid, paid);
    await h.client.publish(pixChargePaid, paid, { messageId: first });
    const again = await publishEvent(h, pixChargePaid, paid);
    await waitForPaymentStatus(h.client, businessId, view.payment.payment_id, 'paid');
    await waitForHandled(h, [first, again]);

    expect(await metric('payment_events_total', { method: 'pix', event: 'confirmed' })).toBe(confirmed + 1);
    expect(await metric('payment_created_to_confirmed_seconds', { method: 'pix' })).toBe(timed + 1);
    expect(await metric('payment_events_total', { method: 'crypto', event: 'confirmed' })).toBe(0);
  });

  test('a cancel counts cancelled once; a cancel refused (the payment is final) counts nothing', async () => {
    const businessId = await newBusiness(h.client);
    const cancelled = await metric('payment_events_total', { method: 'crypto', event: 'cancelled' });
    const view = await create(h.client, businessId, { method: 'crypto', token: 'usdc' });
    const cancel = () =>
      h.client.request(
        cancelPayment,
        { business_id: businessId, payment_id: view.payment.payment_id },
        { timeoutMs: 5000 },
      );
    expect((await cancel()).ok).toBe(true);
    expect(await cancel()).toMatchObject({ ok: false, error: { code: 'INVALID_STATUS' } });
    expect(await metric('payment_events_total', { method: 'crypto', event: 'cancelled' })).toBe(
      cancelled + 1,
    );
  });

  test('refunds count requested when opened and their outcome once when the rail settles them', async () => {
    const businessId = await newBusiness(h.client);
    const view = await create(h.client, businessId);
    await publishEvent(h, pixChargePaid, pixPaid(view));
    await waitForPaymentStatus(h.client, businessId, view.payment.payment_id, 'paid');
    const requested = await metric('payment_refunds_total', { method: 'pix', outcome: 'requested' });
    const succeeded = await metric('payment_refunds_total', { method: 'pix', outcome: 'succeeded' });

    const reply = await h.client.request(
      createRefund,
      { business_id: businessId, payment_id: view.payment.payment_id, amount_centavos: 2500 },
      { timeoutMs: 5000 },
    );
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    expect(await metric('payment_refunds_total', { method: 'pix', outcome: 'requested' })).toBe(
      requested + 1,
    );

    const settled = {
      refund_id: reply.result.refund_id,
      payment_id: view.payment.payment_id,
      outcome: 'succeeded' as const,
      external_id: 'D1234567890',
      failure_reason: null,
    };
    // Settled twice under two message ids (the rail reporting again): one outcome.
    await waitForHandled(h, [
      await publishEvent(h, pixRefundSettled, settled),
      await publishEvent(h, pixRefundSettled, settled),
    ]);
    expect(await metric('payment_refunds_total', { method: 'pix', outcome: 'succeeded' })).toBe(
      succeeded + 1,
    );
    expect(await metric('payment_refunds_total', { method: 'pix', outcome: 'failed' })).toBe(0);
  });

  test('an open payment past the end of its window is reported stuck, with how long past it the oldest is', async () => {
    const businessId = await newBusiness(h.client);
    const view = await create(h.client, businessId, { method: 'crypto', token: 'usdc' });
    await waitFor(
      async () =>
        (await metric('payment_stuck_payments', { method: 'crypto' })) === 0 &&
        (await metric('payment_stuck_payment_oldest_seconds', { method: 'crypto' })) === 0,
      { what: 'no crypto payment reported stuck' },
    );
    // Its window ended 20 minutes ago and no closure came.
    await h.service.dataSource.query(
      `UPDATE payments SET instructions = jsonb_set(instructions, '{expires_at}', to_jsonb($2::text))
        WHERE id = $1`,
      [view.payment.payment_id, new Date(Date.now() - 20 * 60_000).toISOString()],
    );
    await waitFor(async () => (await metric('payment_stuck_payments', { method: 'crypto' })) === 1, {
      what: 'the payment reported stuck',
    });
    const oldest = await metric('payment_stuck_payment_oldest_seconds', { method: 'crypto' });
    expect(oldest).toBeGreaterThanOrEqual(20 * 60 - 5);
    expect(oldest).toBeLessThan(20 * 60 + 60);
    expect(await metric('payment_stuck_payments', { method: 'pix' })).toBe(0);
  });
});
