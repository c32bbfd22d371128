import { createPayment, newPublicId, pixChargePaid, type PaymentView } from '@gateway/contracts';
import { aCreatePayment, paymentServiceForTheseTests } from './support/harness';
import { aPixChargePaid } from './support/rail-events';

describe('a payment in a final status never changes', () => {
  const h = paymentServiceForTheseTests('payment-final');

  async function pay(businessId: string, view: PaymentView): Promise<PaymentView> {
    await h.client.publish(pixChargePaid, aPixChargePaid(view.payment));
    return h.waitForPaymentStatus(businessId, view.payment.payment_id, 'paid');
  }

  const stored = async (paymentId: string) =>
    (
      await h.service.dataSource.query(
        'SELECT status, amount_centavos::int AS amount, fee_centavos::int AS fee, external_id FROM payments WHERE id = $1',
        [paymentId],
      )
    )[0] as { status: string; amount: number; fee: number; external_id: string };

  test('a create redelivered with the same message id after the inbox forgot it is refused and the paid payment keeps its status and amount', async () => {
    const businessId = await h.newBusiness();
    const messageId = newPublicId('cmd');
    const first = await h.request(createPayment, aCreatePayment(businessId, { amount_centavos: 10000 }), {
      messageId,
    });
    if (!first.ok) throw new Error(JSON.stringify(first.error));
    const paid = await pay(businessId, first.result);
    const before = await stored(paid.payment.payment_id);
    // The inbox's retention window passed: only the reservation still ties the message id to the payment.
    await h.service.dataSource.query('DELETE FROM inbox WHERE message_id = $1', [messageId]);
    const opensBefore = h.rails.callsOf('pix.charge.open.v1').length;

    const replayed = await h.request(createPayment, aCreatePayment(businessId, { amount_centavos: 77777 }), {
      messageId,
    });

    expect(replayed).toEqual({
      ok: false,
      error: { code: 'IDEMPOTENCY_CONFLICT', message: expect.stringContaining(paid.payment.payment_id) },
    });
    expect(await stored(paid.payment.payment_id)).toEqual(before);
    expect(before).toMatchObject({ status: 'paid', amount: 10000 });
    expect(h.rails.callsOf('pix.charge.open.v1').length).toBe(opensBefore);
  });

  test('the database refuses to change the status, amount or outcome of a paid payment; updated_at and version still change', async () => {
    const businessId = await h.newBusiness();
    const paid = await pay(businessId, await h.createPayment(businessId));
    const id = paid.payment.payment_id;
    const changes = [
      `status = 'processing'`,
      `status = 'failed'`,
      'amount_centavos = 1',
      'fee_centavos = 0',
      `transaction_id = 'tx_other'`,
      `external_id = 'other'`,
      `failure_code = 'X'`,
      `metadata = 'changed'`,
      `instructions = '{}'::jsonb`,
    ];
    for (const change of changes) {
      await expect(
        h.service.dataSource.query(`UPDATE payments SET ${change} WHERE id = $1`, [id]),
      ).rejects.toMatchObject({ driverError: expect.objectContaining({ code: '23514' }) });
    }
    expect(await stored(id)).toMatchObject({ status: 'paid', amount: 10000 });

    const [, touched] = await h.service.dataSource.query(
      `UPDATE payments SET updated_at = now(), version = version + 1 WHERE id = $1`,
      [id],
    );
    expect(touched).toBe(1);
  });

  test('a column added to payments after the guard is frozen on a paid payment, and still free on an open one', async () => {
    const businessId = await h.newBusiness();
    const paid = await pay(businessId, await h.createPayment(businessId));
    const open = await h.createPayment(businessId);
    await h.service.dataSource.query(
      'ALTER TABLE payments ADD COLUMN IF NOT EXISTS added_after_the_guard bigint',
    );
    const setAdded = (id: string) =>
      h.service.dataSource.query('UPDATE payments SET added_after_the_guard = 1 WHERE id = $1', [id]);

    await expect(setAdded(paid.payment.payment_id)).rejects.toMatchObject({
      driverError: expect.objectContaining({
        code: '23514',
        message: expect.stringContaining('added_after_the_guard'),
      }),
    });
    const [, touched] = await setAdded(open.payment.payment_id);
    expect(touched).toBe(1);
  });

  test('the claims on a payment, which say nothing about its outcome, may still be released on a paid payment', async () => {
    const businessId = await h.newBusiness();
    const paid = await pay(businessId, await h.createPayment(businessId));
    const [, touched] = await h.service.dataSource.query(
      `UPDATE payments SET update_message_id = NULL, update_claimed_until = NULL, reconcile_after = now()
       WHERE id = $1`,
      [paid.payment.payment_id],
    );
    expect(touched).toBe(1);
  });

  test('the database refuses to delete a payment in a final status', async () => {
    const businessId = await h.newBusiness();
    const paid = await pay(businessId, await h.createPayment(businessId));
    await expect(
      h.service.dataSource.query('DELETE FROM payments WHERE id = $1', [paid.payment.payment_id]),
    ).rejects.toMatchObject({ driverError: expect.objectContaining({ code: '23514' }) });
    expect(await stored(paid.payment.payment_id)).toMatchObject({ status: 'paid', amount: 10000 });
  });

  test.each(['failed', 'expired', 'cancelled'])(
    'a payment moved to %s can no longer be reopened or re-priced, while an open one still can',
    async (finalStatus) => {
      const businessId = await h.newBusiness();
      const { payment } = await h.createPayment(businessId);
      const update = (set: string) =>
        h.service.dataSource.query(`UPDATE payments SET ${set} WHERE id = $1`, [payment.payment_id]);

      await update('amount_centavos = 20000');
      await update(`status = '${finalStatus}'`);

      await expect(update(`status = 'processing'`)).rejects.toThrow(/final/);
      await expect(update('amount_centavos = 30000')).rejects.toThrow(/final/);
      await expect(update(`status = 'paid'`)).rejects.toThrow(/final/);
      expect(await stored(payment.payment_id)).toMatchObject({ status: finalStatus, amount: 20000 });
    },
  );
});
