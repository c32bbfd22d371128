import { cancelPayment, createRefund, pixChargePaid, pixRefundSettled } from '@gateway/contracts';
import { metricsRegistry } from '@gateway/observability';
import { waitFor } from '@gateway/testkit';
import { paymentServiceForTheseTests } from './support/harness';
import { aPixChargePaid, aRefundSettlement } from './support/rail-events';

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
  // The stuck-payments gauge is refreshed every reconciliation interval.
  const h = paymentServiceForTheseTests('payment-metrics', { RECONCILE_INTERVAL_SECONDS: '1' });

  test('a PIX payment created and confirmed counts created and confirmed once each, and times created -> confirmed, however often the PIX is reported', async () => {
    const businessId = await h.newBusiness();
    const created = await metric('payment_events_total', { method: 'pix', event: 'created' });
    const confirmed = await metric('payment_events_total', { method: 'pix', event: 'confirmed' });
    const timed = await metric('payment_created_to_confirmed_seconds', { method: 'pix' });

    const view = await h.createPayment(businessId);
    expect(await metric('payment_events_total', { method: 'pix', event: 'created' })).toBe(created + 1);
    // The same report twice (a redelivery), and the same PIX reported again under another message id.
    const paid = aPixChargePaid(view.payment);
    const first = await h.publishEvent(pixChargePaid, paid);
    await h.client.publish(pixChargePaid, paid, { messageId: first });
    const again = await h.publishEvent(pixChargePaid, paid);
    await h.waitForPaymentStatus(businessId, view.payment.payment_id, 'paid');
    await h.waitForHandled([first, again]);

    expect(await metric('payment_events_total', { method: 'pix', event: 'confirmed' })).toBe(confirmed + 1);
    expect(await metric('payment_created_to_confirmed_seconds', { method: 'pix' })).toBe(timed + 1);
    expect(await metric('payment_events_total', { method: 'crypto', event: 'confirmed' })).toBe(0);
  });

  test('a cancel counts cancelled once; a cancel refused (the payment is final) counts nothing', async () => {
    const businessId = await h.newBusiness();
    const cancelled = await metric('payment_events_total', { method: 'crypto', event: 'cancelled' });
    const view = await h.createPayment(businessId, { method: 'crypto', token: 'usdc' });
    const cancel = () =>
      h.request(cancelPayment, { business_id: businessId, payment_id: view.payment.payment_id });
    expect((await cancel()).ok).toBe(true);
    expect(await cancel()).toMatchObject({ ok: false, error: { code: 'INVALID_STATUS' } });
    expect(await metric('payment_events_total', { method: 'crypto', event: 'cancelled' })).toBe(
      cancelled + 1,
    );
  });

  test('refunds count requested when opened and their outcome once when the rail settles them', async () => {
    const businessId = await h.newBusiness();
    const view = await h.createPayment(businessId);
    await h.publishEvent(pixChargePaid, aPixChargePaid(view.payment));
    await h.waitForPaymentStatus(businessId, view.payment.payment_id, 'paid');
    const requested = await metric('payment_refunds_total', { method: 'pix', outcome: 'requested' });
    const succeeded = await metric('payment_refunds_total', { method: 'pix', outcome: 'succeeded' });

    const reply = await h.request(createRefund, {
      business_id: businessId,
      payment_id: view.payment.payment_id,
      amount_centavos: 2500,
    });
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    expect(await metric('payment_refunds_total', { method: 'pix', outcome: 'requested' })).toBe(
      requested + 1,
    );

    const settled = aRefundSettlement(reply.result, { external_id: 'D1234567890' });
    // Settled twice under two message ids (the rail reporting again): one outcome.
    await h.waitForHandled([
      await h.publishEvent(pixRefundSettled, settled),
      await h.publishEvent(pixRefundSettled, settled),
    ]);
    expect(await metric('payment_refunds_total', { method: 'pix', outcome: 'succeeded' })).toBe(
      succeeded + 1,
    );
    expect(await metric('payment_refunds_total', { method: 'pix', outcome: 'failed' })).toBe(0);
  });

  test('an open payment past the end of its window is reported stuck, with how long past it the oldest is', async () => {
    const businessId = await h.newBusiness();
    const view = await h.createPayment(businessId, { method: 'crypto', token: 'usdc' });
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
