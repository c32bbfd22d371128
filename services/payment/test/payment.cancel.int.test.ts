import { cancelPayment, newPublicId, pixChargePaid } from '@gateway/contracts';
import { untilAnsweredOk } from '@gateway/testkit';
import { paymentServiceForTheseTests } from './support/harness';
import { aPixChargePaid } from './support/rail-events';

describe('payment.cancel.v1: an open payment is cancelled once, and a confirmation racing it is told', () => {
  const h = paymentServiceForTheseTests('payment-cancel');

  const cancel = (businessId: string, paymentId: string, messageId?: string) =>
    h.request(cancelPayment, { business_id: businessId, payment_id: paymentId }, { messageId });

  const lateFunds = (paymentId: string): Promise<Array<{ kind: string; rail_reference: string }>> =>
    h.service.dataSource.query(
      `SELECT kind, rail_reference FROM received_funds WHERE payment_id = $1 ORDER BY id`,
      [paymentId],
    );

  test('a processing PIX and a pending crypto payment end cancelled, with payment.cancelled in the outbox', async () => {
    const businessId = await h.newBusiness();
    for (const overrides of [
      { method: 'pix' as const },
      { method: 'crypto' as const, token: 'usdc' as const },
    ]) {
      const view = await h.createPayment(businessId, overrides);
      const reply = await cancel(businessId, view.payment.payment_id);
      if (!reply.ok) throw new Error(JSON.stringify(reply.error));
      expect(reply.result.payment).toMatchObject({
        payment_id: view.payment.payment_id,
        status: 'cancelled',
        failure_code: null,
      });
      expect((await h.readPayment(businessId, view.payment.payment_id)).payment.status).toBe('cancelled');
      expect(await h.emittedPaymentEvents(view.payment.payment_id)).toEqual([
        'payment.created.v1',
        'payment.cancelled.v1',
      ]);
    }
  });

  test('a final payment is refused with INVALID_STATUS naming its status; another business gets NOT_FOUND', async () => {
    const businessId = await h.newBusiness();
    const view = await h.createPayment(businessId);
    const paymentId = view.payment.payment_id;
    const stranger = await cancel(await h.newBusiness(), paymentId);
    expect(stranger).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(await cancel(businessId, newPublicId('pay'))).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND' },
    });
    expect((await cancel(businessId, paymentId)).ok).toBe(true);
    const again = await cancel(businessId, paymentId);
    expect(again).toMatchObject({
      ok: false,
      error: { code: 'INVALID_STATUS', message: expect.stringContaining('cancelled') },
    });
    expect(await h.emittedPaymentEvents(paymentId)).toEqual(['payment.created.v1', 'payment.cancelled.v1']);
  });

  test('the same cancel delivered twice answers the same record and emits one event', async () => {
    const businessId = await h.newBusiness();
    const view = await h.createPayment(businessId);
    const messageId = newPublicId('msg');
    const first = await cancel(businessId, view.payment.payment_id, messageId);
    const second = await cancel(businessId, view.payment.payment_id, messageId);
    expect(first.ok && second.ok).toBe(true);
    expect(second).toEqual(first);
    expect(await h.emittedPaymentEvents(view.payment.payment_id)).toEqual([
      'payment.created.v1',
      'payment.cancelled.v1',
    ]);
  });

  test('a cancel racing the PIX that pays it: exactly one wins, the loser is told, money is never lost (many tries)', async () => {
    const businessId = await h.newBusiness();
    let cancelledWins = 0;
    let paidWins = 0;
    for (let round = 0; round < 5; round += 1) {
      const views = await Promise.all(Array.from({ length: 8 }, () => h.createPayment(businessId)));
      await Promise.all(
        views.map(async (view, index) => {
          const paid = aPixChargePaid(view.payment);
          const paidMessage = newPublicId('msg');
          const sendPaid = () => h.client.publish(pixChargePaid, paid, { messageId: paidMessage });
          // Both orders of sending; the service handles them concurrently either way.
          let reply;
          if (index % 2 === 0) {
            const cancelling = cancel(businessId, view.payment.payment_id);
            await sendPaid();
            reply = await cancelling;
          } else {
            await sendPaid();
            reply = await cancel(businessId, view.payment.payment_id);
          }
          await h.waitForHandled([paidMessage]);
          const { payment } = await h.readPayment(businessId, view.payment.payment_id);
          const events = await h.emittedPaymentEvents(view.payment.payment_id);
          if (reply.ok) {
            cancelledWins += 1;
            expect(payment.status).toBe('cancelled');
            expect(events).toEqual(['payment.created.v1', 'payment.cancelled.v1']);
            expect(await lateFunds(view.payment.payment_id)).toEqual([
              { kind: 'late', rail_reference: paid.end_to_end_id },
            ]);
          } else {
            paidWins += 1;
            expect(reply.error).toMatchObject({
              code: 'INVALID_STATUS',
              message: expect.stringContaining('paid'),
            });
            expect(payment.status).toBe('paid');
            expect(events).toEqual(['payment.created.v1', 'payment.confirmed.v1']);
            expect(await lateFunds(view.payment.payment_id)).toEqual([]);
          }
        }),
      );
    }
    expect(cancelledWins + paidWins).toBe(40);
  });

  test('after losing its broker connection the service cancels again', async () => {
    const businessId = await h.newBusiness();
    const view = await h.createPayment(businessId);
    h.service.broker.dropConnectionForTesting();
    const { result } = await untilAnsweredOk(
      () =>
        h.request(
          cancelPayment,
          { business_id: businessId, payment_id: view.payment.payment_id },
          { timeoutMs: 1000, messageId: `cancel-after-reconnect-${view.payment.payment_id}` },
        ),
      'a cancel after reconnect',
    );
    expect(result.payment.status).toBe('cancelled');
  });
});
