import { cryptoRequestSettled, newPublicId } from '@gateway/contracts';
import { waitFor } from '@gateway/testkit';
import { paymentServiceForTheseTests } from './support/harness';
import { aSignature, anEndToEndId } from './support/rail-events';

describe('payment reconciliation with the rails (rails stood in for on the broker)', () => {
  const h = paymentServiceForTheseTests('payment-reconcile', {
    RECONCILE_AFTER_SECONDS: '1',
    RECONCILE_INTERVAL_SECONDS: '1',
  });

  const funds = (paymentId: string) =>
    h.service.dataSource.query(
      `SELECT kind, rail_reference, amount_base_units AS units FROM received_funds WHERE payment_id = $1 ORDER BY id`,
      [paymentId],
    );

  test('a crypto settlement whose event was lost is applied by the reconciliation: paid once, and the late event changes nothing', async () => {
    const businessId = await h.newBusiness();
    const view = await h.createPayment(businessId, { method: 'crypto', token: 'usdc' });
    const paymentId = view.payment.payment_id;
    const signature = aSignature();
    const settlement = { signature, received_base_units: '1000500', excess_base_units: '500' };
    // The watcher settled the request; its crypto.request.settled.v1 never reached the payment service.
    h.rails.statuses.set(paymentId, {
      reference: view.payment.external_id!,
      status: 'settled',
      received_base_units: '1000500',
      settlement,
      closure: null,
    });
    const paid = await h.waitForPaymentStatus(businessId, paymentId, 'paid');
    expect(paid.payment.transaction_id).toBe(signature);
    expect(await h.emittedPaymentEvents(paymentId)).toEqual(['payment.created.v1', 'payment.confirmed.v1']);

    const lateEventId = newPublicId('msg');
    await h.client.publish(
      cryptoRequestSettled,
      {
        payment_id: paymentId,
        reference: view.payment.external_id!,
        ...settlement,
        settled_at: new Date().toISOString(),
      },
      { messageId: lateEventId },
    );
    await waitFor(
      async () =>
        (await h.service.dataSource.query(`SELECT 1 FROM inbox WHERE message_id = $1`, [lateEventId]))
          .length > 0,
      { what: 'the late settlement event handled' },
    );
    expect(await h.emittedPaymentEvents(paymentId)).toEqual(['payment.created.v1', 'payment.confirmed.v1']);
    expect(await funds(paymentId)).toEqual([{ kind: 'excess', rail_reference: signature, units: '500' }]);
  });

  test('a crypto closure whose event was lost ends the payment failed UNDERPAID with the partial on record', async () => {
    const businessId = await h.newBusiness();
    const view = await h.createPayment(businessId, { method: 'crypto', token: 'usdc' });
    const paymentId = view.payment.payment_id;
    h.rails.statuses.set(paymentId, {
      reference: view.payment.external_id!,
      status: 'underpaid',
      received_base_units: '300000',
      settlement: null,
      closure: { reason: 'underpaid', received_base_units: '300000' },
    });
    const failed = await h.waitForPaymentStatus(businessId, paymentId, 'failed');
    expect(failed.payment.failure_code).toBe('UNDERPAID');
    expect(await h.emittedPaymentEvents(paymentId)).toEqual(['payment.created.v1', 'payment.failed.v1']);
    expect(await funds(paymentId)).toEqual([
      { kind: 'partial', rail_reference: view.payment.external_id, units: '300000' },
    ]);
  });

  test('a PIX the PSP lists whose event was lost pays the payment once, however often it is reconciled', async () => {
    const businessId = await h.newBusiness();
    const view = await h.createPayment(businessId, { amount_centavos: 2500 });
    const paymentId = view.payment.payment_id;
    const endToEndId = anEndToEndId();
    h.rails.statuses.set(paymentId, {
      txid: view.payment.external_id!,
      status: 'paid',
      pix: [{ end_to_end_id: endToEndId, amount_centavos: 2500, paid_at: new Date().toISOString() }],
      closure: null,
    });
    await Promise.all(Array.from({ length: 4 }, () => h.service.reconciliation.reconcilePayment(paymentId)));
    const paid = await h.readPayment(businessId, paymentId);
    expect(paid.payment).toMatchObject({ status: 'paid', transaction_id: endToEndId });
    expect(await h.emittedPaymentEvents(paymentId)).toEqual(['payment.created.v1', 'payment.confirmed.v1']);
  });

  test('a payment its rail still reports open stays open and is asked about again only after the threshold', async () => {
    const businessId = await h.newBusiness();
    const view = await h.createPayment(businessId, { method: 'crypto', token: 'usdc' });
    const paymentId = view.payment.payment_id;
    const asked = () =>
      h.rails.callsOf('crypto.request.status.v1').filter((call) => call.payload.payment_id === paymentId);
    await waitFor(() => asked().length >= 3, { what: 'the payment asked about three times' });
    const [first, second, third] = asked();
    // Created at t, asked from t + 1 s on, then each time at least 1 s (RECONCILE_AFTER_SECONDS) after the last.
    expect(first!.at - Date.parse(view.payment.created_at)).toBeGreaterThanOrEqual(900);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(900);
    expect(third!.at - second!.at).toBeGreaterThanOrEqual(900);
    expect((await h.readPayment(businessId, paymentId)).payment.status).toBe('pending');
    expect(await h.emittedPaymentEvents(paymentId)).toEqual(['payment.created.v1']);
  });
});
