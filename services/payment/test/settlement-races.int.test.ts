import {
  cryptoRequestClosed,
  cryptoTransferUnapplied,
  pixChargeClosed,
  pixChargePaid,
  updatePayment,
  type MessageDefinition,
  type PaymentView,
} from '@gateway/contracts';
import { paymentServiceForTheseTests } from './support/harness';
import {
  aCryptoRequestClosed,
  aCryptoTransferUnapplied,
  aPixChargeClosed,
  aPixChargePaid,
  aSignature,
} from './support/rail-events';

describe('settlement decisions under the payment row lock', () => {
  const h = paymentServiceForTheseTests('payment-races');

  const publish = <P>(definition: MessageDefinition<P>, payload: P) => h.publishEvent(definition, payload);

  describe('a partial PIX and the charge closing, handled at once in either order', () => {
    test('always end failed UNDERPAID with the partial recorded once (many tries)', async () => {
      const businessId = await h.newBusiness();
      for (let round = 0; round < 4; round += 1) {
        const payments = await Promise.all(Array.from({ length: 8 }, () => h.createPayment(businessId)));
        const partials = payments.map((view) => aPixChargePaid(view.payment, { amount_centavos: 4000 }));
        // As the PIX adapter's sweeper emits them (in one transaction), but consumed concurrently: both orders.
        const sent = await Promise.all(
          partials.map(async (paid, index) => {
            const closed = aPixChargeClosed(payments[index]!.payment, {
              reason: 'underpaid',
              received_pix: [{ end_to_end_id: paid.end_to_end_id, amount_centavos: paid.amount_centavos }],
            });
            const sends = [() => publish(pixChargePaid, paid), () => publish(pixChargeClosed, closed)];
            if (index % 2 === 1) sends.reverse();
            return [await sends[0]!(), await sends[1]!()];
          }),
        );
        await h.waitForHandled(sent.flat());
        for (const paid of partials) {
          const { payment } = await h.readPayment(businessId, paid.payment_id);
          expect(payment).toMatchObject({ status: 'failed', failure_code: 'UNDERPAID' });
          expect(await h.receivedFunds(paid.payment_id)).toEqual([
            { kind: 'partial', rail_reference: paid.end_to_end_id, centavos: 4000, units: null },
          ]);
          expect(await h.emittedPaymentEvents(paid.payment_id)).toEqual([
            'payment.created.v1',
            'payment.failed.v1',
          ]);
        }
      }
    });
  });

  test('a partial PIX reported again by the closure counts once, even after the amount was lowered to it', async () => {
    const businessId = await h.newBusiness();
    const view = await h.createPayment(businessId, { amount_centavos: 10000 });
    const paymentId = view.payment.payment_id;
    const partial = aPixChargePaid(view.payment, { amount_centavos: 4000 });
    await h.waitForHandled([await publish(pixChargePaid, partial)]);
    const changed = await h.request(updatePayment, {
      business_id: businessId,
      payment_id: paymentId,
      amount_centavos: 4000,
    });
    expect(changed.ok).toBe(true);
    await publish(
      pixChargeClosed,
      aPixChargeClosed(view.payment, {
        reason: 'underpaid',
        received_pix: [{ end_to_end_id: partial.end_to_end_id, amount_centavos: 4000 }],
      }),
    );
    const failed = await h.waitForPaymentStatus(businessId, paymentId, 'failed');
    expect(failed.payment).toMatchObject({ failure_code: 'UNDERPAID', transaction_id: null });
    expect(await h.receivedFunds(paymentId)).toEqual([
      { kind: 'partial', rail_reference: partial.end_to_end_id, centavos: 4000, units: null },
    ]);
  });

  test('a crypto transfer that landed after the window, reported with the closure in either order, is late funds and the payment expires (many tries)', async () => {
    const businessId = await h.newBusiness();
    const payments = await Promise.all(
      Array.from({ length: 10 }, () => h.createPayment(businessId, { method: 'crypto', token: 'usdc' })),
    );
    const signatures = payments.map(() => aSignature());
    const sent = await Promise.all(
      payments.map(async ({ payment }, index) => {
        const reports = [
          () =>
            publish(
              cryptoTransferUnapplied,
              aCryptoTransferUnapplied(payment, { signature: signatures[index]! }),
            ),
          () => publish(cryptoRequestClosed, aCryptoRequestClosed(payment)),
        ];
        if (index % 2 === 1) reports.reverse();
        return [await reports[0]!(), await reports[1]!()];
      }),
    );
    await h.waitForHandled(sent.flat());
    for (const [index, { payment }] of payments.entries()) {
      expect((await h.readPayment(businessId, payment.payment_id)).payment).toMatchObject({
        status: 'expired',
        transaction_id: null,
      });
      expect(await h.receivedFunds(payment.payment_id)).toEqual([
        { kind: 'late', rail_reference: signatures[index], centavos: null, units: '1000000' },
      ]);
    }
  });

  describe('crypto amount change', () => {
    const newCrypto = async (): Promise<{ businessId: string; view: PaymentView }> => {
      const businessId = await h.newBusiness();
      return { businessId, view: await h.createPayment(businessId, { method: 'crypto', token: 'usdc' }) };
    };

    const patch = (businessId: string, paymentId: string, amount: number) =>
      h.request(updatePayment, { business_id: businessId, payment_id: paymentId, amount_centavos: amount });

    afterEach(() => {
      h.rails.receivedBeforeAmountChange = '0';
    });

    test('what the replaced request had received is recorded, and an expiry after the change is UNDERPAID', async () => {
      const { businessId, view } = await newCrypto();
      h.rails.receivedBeforeAmountChange = '400000';
      const reply = await patch(businessId, view.payment.payment_id, 15000);
      if (!reply.ok) throw new Error(JSON.stringify(reply.error));
      expect(reply.result.payment).toMatchObject({ status: 'pending', amount_centavos: 15000 });
      expect(await h.receivedFunds(view.payment.payment_id)).toEqual([
        { kind: 'partial', rail_reference: view.payment.external_id, centavos: null, units: '400000' },
      ]);
      await publish(cryptoRequestClosed, aCryptoRequestClosed(reply.result.payment));
      const failed = await h.waitForPaymentStatus(businessId, view.payment.payment_id, 'failed');
      expect(failed.payment.failure_code).toBe('UNDERPAID');
    });

    test('a change of a payment whose window closed is refused with INVALID_STATUS, and nothing reopens', async () => {
      const { businessId, view } = await newCrypto();
      await publish(cryptoRequestClosed, aCryptoRequestClosed(view.payment));
      await h.waitForPaymentStatus(businessId, view.payment.payment_id, 'expired');
      const reply = await patch(businessId, view.payment.payment_id, 15000);
      expect(reply).toEqual({
        ok: false,
        error: {
          code: 'INVALID_STATUS',
          message: 'Operação não permitida: o pagamento está com status expired.',
        },
      });
      const changes = h.rails.callsOf('crypto.request.change-amount.v1');
      expect(changes.filter((call) => call.payload.payment_id === view.payment.payment_id)).toEqual([]);
      expect((await h.readPayment(businessId, view.payment.payment_id)).payment).toMatchObject({
        status: 'expired',
        amount_centavos: view.payment.amount_centavos,
      });
    });

    test('the closure of the replaced request, arriving after the change committed, fails the payment at its new amount with the received money recorded once', async () => {
      h.rails.receivedBeforeAmountChange = '250000';
      const { businessId, view } = await newCrypto();
      const reply = await patch(businessId, view.payment.payment_id, 15000);
      if (!reply.ok) throw new Error(JSON.stringify(reply.error));
      const closing = await publish(
        cryptoRequestClosed,
        aCryptoRequestClosed(view.payment, { reason: 'underpaid', received_base_units: '250000' }),
      );
      const failed = await h.waitForPaymentStatus(businessId, view.payment.payment_id, 'failed');
      expect(failed.payment).toMatchObject({ failure_code: 'UNDERPAID', amount_centavos: 15000 });
      await h.waitForHandled([closing]);
      expect(await h.receivedFunds(view.payment.payment_id)).toEqual([
        { kind: 'partial', rail_reference: view.payment.external_id, centavos: null, units: '250000' },
      ]);
      expect(await h.emittedPaymentEvents(view.payment.payment_id)).toEqual([
        'payment.created.v1',
        'payment.changed.v1',
        'payment.failed.v1',
      ]);
    });

    test('a change racing the closure ends in one final status with the received money recorded once (many tries)', async () => {
      h.rails.receivedBeforeAmountChange = '250000';
      for (let attempt = 0; attempt < 12; attempt += 1) {
        const { businessId, view } = await newCrypto();
        const paymentId = view.payment.payment_id;
        const [reply, closing] = await Promise.all([
          patch(businessId, paymentId, 15000),
          publish(
            cryptoRequestClosed,
            aCryptoRequestClosed(view.payment, { reason: 'underpaid', received_base_units: '250000' }),
          ),
        ]);
        const failed = await h.waitForPaymentStatus(businessId, paymentId, 'failed');
        expect(failed.payment.failure_code).toBe('UNDERPAID');
        expect(failed.payment.amount_centavos).toBe(reply.ok ? 15000 : view.payment.amount_centavos);
        if (!reply.ok) expect(reply.error.code).toBe('INVALID_STATUS');
        await h.waitForHandled([closing]);
        expect(await h.receivedFunds(paymentId)).toEqual([
          { kind: 'partial', rail_reference: view.payment.external_id, centavos: null, units: '250000' },
        ]);
        // A change that won the race was announced before the closure failed the payment.
        expect(await h.emittedPaymentEvents(paymentId)).toEqual(
          reply.ok
            ? ['payment.created.v1', 'payment.changed.v1', 'payment.failed.v1']
            : ['payment.created.v1', 'payment.failed.v1'],
        );
      }
    });
  });
});
