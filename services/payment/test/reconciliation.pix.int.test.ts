import {
  createPayment,
  newPublicId,
  pixChargePaid,
  setFeeRule,
  type PaymentView,
  type PixChargePaid,
} from '@gateway/contracts';
import { SANDBOX_PIX_KEY } from '@gateway/pix-adapter/src/config';
import { payAtPsp, waitFor, withoutPspCallbacks } from '@gateway/testkit';
import { startPaymentService } from '../src/main';
import { readPayment, waitForPaymentStatus } from './support/harness';
import { paymentWithPixRailForTheseTests } from './support/real-pix-rail';

describe('PIX reconciliation end to end (payment service + PIX adapter + PSP simulator)', () => {
  const bed = paymentWithPixRailForTheseTests('pix-reconcile', {
    // Only the payment service's reconciliation may find a PIX whose callback was lost here.
    adapter: { CALLBACK_OVERDUE_SECONDS: '3600' },
    payment: { RECONCILE_AFTER_SECONDS: '1', RECONCILE_INTERVAL_SECONDS: '1' },
  });

  async function createPix(amount = 5000): Promise<{ businessId: string; view: PaymentView }> {
    const businessId = newPublicId('biz');
    const rule = { business_id: businessId, method: 'pix' as const, percent_bps: 100, fixed_centavos: 0 };
    expect((await bed.request(setFeeRule, rule)).ok).toBe(true);
    const reply = await bed.request(
      createPayment,
      {
        business_id: businessId,
        business_name: 'Mercadinho Boa Vista',
        method: 'pix',
        amount_centavos: amount,
        metadata: null,
        token: null,
      },
      { timeoutMs: 8000 },
    );
    if (!reply.ok) throw new Error(`create failed: ${JSON.stringify(reply.error)}`);
    return { businessId, view: reply.result };
  }

  const confirmations = async (paymentId: string): Promise<number> =>
    (
      await bed.service.dataSource.query(
        `SELECT count(*)::int AS n FROM outbox
          WHERE name = 'payment.confirmed.v1' AND envelope->'payload'->'payment'->>'payment_id' = $1`,
        [paymentId],
      )
    )[0].n;

  /** Waits until the payment service handled every pix.charge.paid.v1 the adapter wrote for the payment. */
  async function waitForPixEventsHandled(paymentId: string): Promise<void> {
    const events: Array<{ message_id: string }> = await bed.adapter.dataSource.query(
      `SELECT message_id FROM outbox WHERE name = 'pix.charge.paid.v1' AND envelope->'payload'->>'payment_id' = $1`,
      [paymentId],
    );
    expect(events.length).toBeGreaterThan(0);
    await waitFor(
      async () => {
        const handled: unknown[] = await bed.service.dataSource.query(
          `SELECT 1 FROM inbox WHERE message_id = ANY($1::text[])`,
          [events.map((event) => event.message_id)],
        );
        return handled.length === events.length;
      },
      { what: 'the PIX events handled by the payment service' },
    );
  }

  test('a PIX whose PSP callback never came is found by the reconciliation: paid, with exactly one payment.confirmed', async () => {
    const restoreCallbacks = await withoutPspCallbacks(bed.pspUrl, SANDBOX_PIX_KEY);
    try {
      const { businessId, view } = await createPix(5000);
      const paymentId = view.payment.payment_id;
      expect((await payAtPsp(bed.pspUrl, view.payment.external_id!)).ok).toBe(true);
      const paid = await waitForPaymentStatus(bed, businessId, paymentId, 'paid');
      expect(paid.payment.transaction_id).toMatch(/^E[A-Za-z0-9]{31}$/);
      // The adapter learnt it through the same question: its charge is paid and it reported the PIX once.
      const [charge] = await bed.adapter.dataSource.query(
        `SELECT status, paid_end_to_end_id FROM charges WHERE payment_id = $1`,
        [paymentId],
      );
      expect(charge).toEqual({ status: 'paid', paid_end_to_end_id: paid.payment.transaction_id });
      await waitForPixEventsHandled(paymentId);
      expect(await confirmations(paymentId)).toBe(1);
    } finally {
      await restoreCallbacks();
    }
  });

  test('a pix.charge.paid that never reached the payment service is made good by the reconciliation: paid, one payment.confirmed', async () => {
    const { businessId, view } = await createPix(4200);
    const paymentId = view.payment.payment_id;
    // While the payment service is down, another consumer of its queue takes the event and drops it: lost.
    await bed.service.stop();
    const thief = await bed.connect('event-thief');
    const stolen: PixChargePaid[] = [];
    await thief
      .handlers('payment')
      .handle(pixChargePaid, async (event: PixChargePaid) => void stolen.push(event))
      .consume();
    expect((await payAtPsp(bed.pspUrl, view.payment.external_id!)).ok).toBe(true);
    await waitFor(() => stolen.some((event) => event.payment_id === paymentId), {
      what: 'the pix.charge.paid taken away',
    });
    await thief.close();
    bed.service = await startPaymentService(bed.paymentConfig);
    const paid = await waitForPaymentStatus(bed, businessId, paymentId, 'paid');
    expect(paid.payment.transaction_id).toBe(
      stolen.find((event) => event.payment_id === paymentId)!.end_to_end_id,
    );
    expect(await confirmations(paymentId)).toBe(1);
  }, 60_000); // a restart and two waits of up to 10 s each: more than jest's default on a loaded machine

  test('the reconciliation racing the PSP callback confirms each payment exactly once (many tries)', async () => {
    for (let attempt = 0; attempt < 8; attempt += 1) {
      const { businessId, view } = await createPix(3000 + attempt);
      const paymentId = view.payment.payment_id;
      const isPaid = async () => (await readPayment(bed, businessId, paymentId)).payment.status === 'paid';
      const reconcileUntilPaid = async () => {
        while (!(await isPaid())) await bed.service.reconciliation.reconcilePayment(paymentId);
      };
      const [payment] = await Promise.all([
        payAtPsp(bed.pspUrl, view.payment.external_id!),
        reconcileUntilPaid(),
        reconcileUntilPaid(),
      ]);
      expect(payment.ok).toBe(true);
      await waitForPixEventsHandled(paymentId);
      expect(await confirmations(paymentId)).toBe(1);
      expect((await readPayment(bed, businessId, paymentId)).payment.status).toBe('paid');
    }
  });
});
