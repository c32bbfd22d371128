import {
  cryptoRequestClosed,
  cryptoRequestSettled,
  newPublicId,
  pixChargeClosed,
  pixChargePaid,
  type MessageDefinition,
} from '@gateway/contracts';
import { poisonCase, publishAndAwaitHandling, waitFor } from '@gateway/testkit';
import { paymentServiceForTheseTests } from './support/harness';
import {
  aCryptoRequestClosed,
  aCryptoRequestSettled,
  aPixChargeClosed,
  aPixChargePaid,
} from './support/rail-events';

describe('payment service rail events', () => {
  const h = paymentServiceForTheseTests('payment-evt');

  const publish = <P>(definition: MessageDefinition<P>, payload: P) => h.client.publish(definition, payload);

  /** Publishes, and resolves once the service has handled this very delivery (a duplicate leaves no row). */
  const deliver = <P>(definition: MessageDefinition<P>, payload: P, messageId = newPublicId('msg')) =>
    publishAndAwaitHandling(h.env.config, definition, payload, { messageId });

  describe('pix.charge.paid.v1', () => {
    test('the full amount pays the payment with the endToEndId, and a redelivery confirms nothing more', async () => {
      const businessId = await h.newBusiness();
      const view = await h.createPayment(businessId);
      const paid = aPixChargePaid(view.payment);
      const messageId = newPublicId('msg');
      await Promise.all([deliver(pixChargePaid, paid, messageId), deliver(pixChargePaid, paid, messageId)]);
      expect((await h.readPayment(businessId, view.payment.payment_id)).payment).toMatchObject({
        status: 'paid',
        transaction_id: paid.end_to_end_id,
      });
      expect(await h.emittedPaymentEvents(view.payment.payment_id)).toEqual([
        'payment.created.v1',
        'payment.confirmed.v1',
      ]);
    });

    test('a lower amount is recorded as partial and the payment stays open; the expiry then fails it UNDERPAID', async () => {
      const businessId = await h.newBusiness();
      const view = await h.createPayment(businessId);
      await publish(pixChargePaid, aPixChargePaid(view.payment, { amount_centavos: 4000 }));
      await waitFor(async () => (await h.receivedFunds(view.payment.payment_id)).length === 1, {
        what: 'partial funds',
      });
      expect((await h.readPayment(businessId, view.payment.payment_id)).payment.status).toBe('processing');
      await publish(pixChargeClosed, aPixChargeClosed(view.payment));
      const failed = await h.waitForPaymentStatus(businessId, view.payment.payment_id, 'failed');
      expect(failed.payment.failure_code).toBe('UNDERPAID');
    });

    test('a PIX confirmed after expiry is recorded as late funds and the payment stays expired', async () => {
      const businessId = await h.newBusiness();
      const view = await h.createPayment(businessId);
      await publish(pixChargeClosed, aPixChargeClosed(view.payment));
      await h.waitForPaymentStatus(businessId, view.payment.payment_id, 'expired');
      const late = aPixChargePaid(view.payment);
      await publish(pixChargePaid, late);
      await waitFor(async () => (await h.receivedFunds(view.payment.payment_id)).length === 1, {
        what: 'late funds',
      });
      expect(await h.receivedFunds(view.payment.payment_id)).toEqual([
        { kind: 'late', rail_reference: late.end_to_end_id, centavos: 10000, units: null },
      ]);
      expect(await h.emittedPaymentEvents(view.payment.payment_id)).toEqual([
        'payment.created.v1',
        'payment.expired.v1',
      ]);
    });

    test('when a payment and its expiry race, exactly one final event is emitted', async () => {
      const businessId = await h.newBusiness();
      const view = await h.createPayment(businessId);
      await Promise.all([
        deliver(pixChargePaid, aPixChargePaid(view.payment)),
        deliver(pixChargeClosed, aPixChargeClosed(view.payment)),
      ]);
      const final = (await h.emittedPaymentEvents(view.payment.payment_id)).slice(1);
      expect(final).toHaveLength(1);
      const { status } = (await h.readPayment(businessId, view.payment.payment_id)).payment;
      expect(final[0]).toBe(status === 'paid' ? 'payment.confirmed.v1' : 'payment.expired.v1');
      if (status === 'expired') expect((await h.receivedFunds(view.payment.payment_id))[0].kind).toBe('late');
    });
  });

  describe('pix.charge.closed.v1', () => {
    test('a charge the PSP removed fails the payment once, even when the event is delivered twice', async () => {
      const businessId = await h.newBusiness();
      const view = await h.createPayment(businessId);
      const closed = aPixChargeClosed(view.payment, { reason: 'failed', detail: 'REMOVIDA_PELO_PSP' });
      const messageId = newPublicId('msg');
      await Promise.all([
        deliver(pixChargeClosed, closed, messageId),
        deliver(pixChargeClosed, closed, messageId),
      ]);
      expect((await h.readPayment(businessId, view.payment.payment_id)).payment).toMatchObject({
        status: 'failed',
        failure_code: 'RAIL_FAILED',
      });
      expect(await h.emittedPaymentEvents(view.payment.payment_id)).toEqual([
        'payment.created.v1',
        'payment.failed.v1',
      ]);
    });
  });

  describe('crypto.request.settled.v1', () => {
    test('pays with the signature and records the excess, once per delivery', async () => {
      const businessId = await h.newBusiness();
      const view = await h.createPayment(businessId, { method: 'crypto', token: 'usdc' });
      const settled = aCryptoRequestSettled(view.payment, {
        received_base_units: '1500000',
        excess_base_units: '500000',
      });
      const messageId = newPublicId('msg');
      await Promise.all([
        deliver(cryptoRequestSettled, settled, messageId),
        deliver(cryptoRequestSettled, settled, messageId),
      ]);
      expect((await h.readPayment(businessId, view.payment.payment_id)).payment).toMatchObject({
        status: 'paid',
        transaction_id: settled.signature,
      });
      expect(await h.receivedFunds(view.payment.payment_id)).toEqual([
        { kind: 'excess', rail_reference: settled.signature, centavos: null, units: '500000' },
      ]);
      expect(await h.emittedPaymentEvents(view.payment.payment_id)).toEqual([
        'payment.created.v1',
        'payment.confirmed.v1',
      ]);
    });
  });

  describe('crypto.request.closed.v1', () => {
    test('underpaid fails UNDERPAID with the partial amount kept; expired expires; each once', async () => {
      const businessId = await h.newBusiness();
      const underpaid = await h.createPayment(businessId, { method: 'crypto', token: 'usdc' });
      const expired = await h.createPayment(businessId, { method: 'crypto', token: 'usdc' });
      const messageId = newPublicId('msg');
      const closed = aCryptoRequestClosed(underpaid.payment, {
        reason: 'underpaid',
        received_base_units: '300000',
      });
      await Promise.all([
        deliver(cryptoRequestClosed, closed, messageId),
        deliver(cryptoRequestClosed, closed, messageId),
        deliver(cryptoRequestClosed, aCryptoRequestClosed(expired.payment)),
      ]);
      expect((await h.readPayment(businessId, underpaid.payment.payment_id)).payment).toMatchObject({
        status: 'failed',
        failure_code: 'UNDERPAID',
      });
      expect((await h.readPayment(businessId, expired.payment.payment_id)).payment.status).toBe('expired');
      expect(await h.receivedFunds(underpaid.payment.payment_id)).toEqual([
        { kind: 'partial', rail_reference: closed.reference, centavos: null, units: '300000' },
      ]);
      expect(await h.emittedPaymentEvents(underpaid.payment.payment_id)).toEqual([
        'payment.created.v1',
        'payment.failed.v1',
      ]);
    });
  });

  /** A payment the rails could report on, for a report whose poisoned payment id the service must refuse. */
  const reported = () => ({
    payment_id: newPublicId('pay'),
    external_id: 'rail-reference',
    amount_centavos: 1,
  });
  const railEvents = [
    poisonCase(pixChargePaid, aPixChargePaid(reported())),
    poisonCase(pixChargeClosed, aPixChargeClosed(reported())),
    poisonCase(cryptoRequestSettled, aCryptoRequestSettled(reported())),
    poisonCase(cryptoRequestClosed, aCryptoRequestClosed(reported())),
  ];

  test.each(railEvents)(
    'a poison %s event is parked, not retried forever',
    async (_name, definition, payload) => {
      const { messageId, parked } = await h.publishPoisoned('events', definition, payload, {
        payment_id: 42,
      });
      expect(parked).toEqual([
        expect.objectContaining({ messageId, reason: expect.stringContaining('payment_id') }),
      ]);
    },
  );

  test('after losing its broker connection the service consumes rail events again', async () => {
    const businessId = await h.newBusiness();
    const pix = await h.createPayment(businessId);
    const crypto = await h.createPayment(businessId, { method: 'crypto', token: 'usdc' });
    h.service.broker.dropConnectionForTesting();
    await h.client.publish(pixChargePaid, aPixChargePaid(pix.payment));
    await h.client.publish(cryptoRequestClosed, aCryptoRequestClosed(crypto.payment, { reason: 'failed' }));
    await h.waitForPaymentStatus(businessId, pix.payment.payment_id, 'paid');
    await h.waitForPaymentStatus(businessId, crypto.payment.payment_id, 'failed');
  });
});
