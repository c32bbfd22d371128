import {
  cryptoRequestClosed,
  cryptoRequestSettled,
  newPublicId,
  pixChargeClosed,
  pixChargePaid,
  type MessageDefinition,
} from '@gateway/contracts';
import { createEnvelope } from '@gateway/messaging';
import { publishAndAwaitHandling, waitFor, waitForParkedMessages } from '@gateway/testkit';
import {
  create,
  emittedPaymentEvents,
  newBusiness,
  readPayment,
  receivedFunds,
  startHarness,
  waitForPaymentStatus,
  type Harness,
} from './support/harness';
import {
  aCryptoRequestClosed,
  aCryptoRequestSettled,
  aPixChargeClosed,
  aPixChargePaid,
} from './support/rail-events';

describe('payment service rail events', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness('payment-evt');
  });

  afterAll(() => h.close());

  const publish = <P>(definition: MessageDefinition<P>, payload: P) => h.client.publish(definition, payload);

  /** Publishes, and resolves once the service has handled this very delivery (a duplicate leaves no row). */
  const deliver = <P>(definition: MessageDefinition<P>, payload: P, messageId = newPublicId('msg')) =>
    publishAndAwaitHandling(h.env.config, definition, payload, { messageId });

  const read = (businessId: string, paymentId: string) => readPayment(h.client, businessId, paymentId);
  const waitForStatus = (businessId: string, paymentId: string, status: string) =>
    waitForPaymentStatus(h.client, businessId, paymentId, status);

  const events = (paymentId: string) => emittedPaymentEvents(h, paymentId);

  const funds = (paymentId: string) => receivedFunds(h, paymentId);

  describe('pix.charge.paid.v1', () => {
    test('the full amount pays the payment with the endToEndId, and a redelivery confirms nothing more', async () => {
      const businessId = await newBusiness(h.client);
      const view = await create(h.client, businessId);
      const paid = aPixChargePaid(view.payment);
      const messageId = newPublicId('msg');
      await Promise.all([deliver(pixChargePaid, paid, messageId), deliver(pixChargePaid, paid, messageId)]);
      expect((await read(businessId, view.payment.payment_id)).payment).toMatchObject({
        status: 'paid',
        transaction_id: paid.end_to_end_id,
      });
      expect(await events(view.payment.payment_id)).toEqual(['payment.created.v1', 'payment.confirmed.v1']);
    });

    test('a lower amount is recorded as partial and the payment stays open; the expiry then fails it UNDERPAID', async () => {
      const businessId = await newBusiness(h.client);
      const view = await create(h.client, businessId);
      await publish(pixChargePaid, aPixChargePaid(view.payment, { amount_centavos: 4000 }));
      await waitFor(async () => (await funds(view.payment.payment_id)).length === 1, {
        what: 'partial funds',
      });
      expect((await read(businessId, view.payment.payment_id)).payment.status).toBe('processing');
      await publish(pixChargeClosed, aPixChargeClosed(view.payment));
      const failed = await waitForStatus(businessId, view.payment.payment_id, 'failed');
      expect(failed.payment.failure_code).toBe('UNDERPAID');
    });

    test('a PIX confirmed after expiry is recorded as late funds and the payment stays expired', async () => {
      const businessId = await newBusiness(h.client);
      const view = await create(h.client, businessId);
      await publish(pixChargeClosed, aPixChargeClosed(view.payment));
      await waitForStatus(businessId, view.payment.payment_id, 'expired');
      const late = aPixChargePaid(view.payment);
      await publish(pixChargePaid, late);
      await waitFor(async () => (await funds(view.payment.payment_id)).length === 1, { what: 'late funds' });
      expect(await funds(view.payment.payment_id)).toEqual([
        { kind: 'late', rail_reference: late.end_to_end_id, centavos: 10000, units: null },
      ]);
      expect(await events(view.payment.payment_id)).toEqual(['payment.created.v1', 'payment.expired.v1']);
    });

    test('when a payment and its expiry race, exactly one final event is emitted', async () => {
      const businessId = await newBusiness(h.client);
      const view = await create(h.client, businessId);
      await Promise.all([
        deliver(pixChargePaid, aPixChargePaid(view.payment)),
        deliver(pixChargeClosed, aPixChargeClosed(view.payment)),
      ]);
      const final = (await events(view.payment.payment_id)).slice(1);
      expect(final).toHaveLength(1);
      const { status } = (await read(businessId, view.payment.payment_id)).payment;
      expect(final[0]).toBe(status === 'paid' ? 'payment.confirmed.v1' : 'payment.expired.v1');
      if (status === 'expired') expect((await funds(view.payment.payment_id))[0].kind).toBe('late');
    });
  });

  describe('pix.charge.closed.v1', () => {
    test('a charge the PSP removed fails the payment once, even when the event is delivered twice', async () => {
      const businessId = await newBusiness(h.client);
      const view = await create(h.client, businessId);
      const closed = aPixChargeClosed(view.payment, { reason: 'failed', detail: 'REMOVIDA_PELO_PSP' });
      const messageId = newPublicId('msg');
      await Promise.all([
        deliver(pixChargeClosed, closed, messageId),
        deliver(pixChargeClosed, closed, messageId),
      ]);
      expect((await read(businessId, view.payment.payment_id)).payment).toMatchObject({
        status: 'failed',
        failure_code: 'RAIL_FAILED',
      });
      expect(await events(view.payment.payment_id)).toEqual(['payment.created.v1', 'payment.failed.v1']);
    });
  });

  describe('crypto.request.settled.v1', () => {
    test('pays with the signature and records the excess, once per delivery', async () => {
      const businessId = await newBusiness(h.client);
      const view = await create(h.client, businessId, { method: 'crypto', token: 'usdc' });
      const settled = aCryptoRequestSettled(view.payment, {
        received_base_units: '1500000',
        excess_base_units: '500000',
      });
      const messageId = newPublicId('msg');
      await Promise.all([
        deliver(cryptoRequestSettled, settled, messageId),
        deliver(cryptoRequestSettled, settled, messageId),
      ]);
      expect((await read(businessId, view.payment.payment_id)).payment).toMatchObject({
        status: 'paid',
        transaction_id: settled.signature,
      });
      expect(await funds(view.payment.payment_id)).toEqual([
        { kind: 'excess', rail_reference: settled.signature, centavos: null, units: '500000' },
      ]);
      expect(await events(view.payment.payment_id)).toEqual(['payment.created.v1', 'payment.confirmed.v1']);
    });
  });

  describe('crypto.request.closed.v1', () => {
    test('underpaid fails UNDERPAID with the partial amount kept; expired expires; each once', async () => {
      const businessId = await newBusiness(h.client);
      const underpaid = await create(h.client, businessId, { method: 'crypto', token: 'usdc' });
      const expired = await create(h.client, businessId, { method: 'crypto', token: 'usdc' });
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
      expect((await read(businessId, underpaid.payment.payment_id)).payment).toMatchObject({
        status: 'failed',
        failure_code: 'UNDERPAID',
      });
      expect((await read(businessId, expired.payment.payment_id)).payment.status).toBe('expired');
      expect(await funds(underpaid.payment.payment_id)).toEqual([
        { kind: 'partial', rail_reference: closed.reference, centavos: null, units: '300000' },
      ]);
      expect(await events(underpaid.payment.payment_id)).toEqual(['payment.created.v1', 'payment.failed.v1']);
    });
  });

  const railEvents: Array<[string, MessageDefinition<unknown>, Record<string, unknown>]> = [
    [
      pixChargePaid.name,
      pixChargePaid as MessageDefinition<unknown>,
      { txid: 't', end_to_end_id: 'e', amount_centavos: 1, paid_at: new Date().toISOString() },
    ],
    [
      pixChargeClosed.name,
      pixChargeClosed as MessageDefinition<unknown>,
      { txid: 't', reason: 'expired', detail: null },
    ],
    [
      cryptoRequestSettled.name,
      cryptoRequestSettled as MessageDefinition<unknown>,
      {
        reference: 'r',
        signature: 's',
        received_base_units: '1',
        excess_base_units: '0',
        settled_at: new Date().toISOString(),
      },
    ],
    [
      cryptoRequestClosed.name,
      cryptoRequestClosed as MessageDefinition<unknown>,
      { reference: 'r', reason: 'expired', received_base_units: '0' },
    ],
  ];

  test.each(railEvents)(
    'a poison %s event is parked, not retried forever',
    async (_name, definition, payload) => {
      const envelope = createEnvelope(definition, { ...payload, payment_id: newPublicId('pay') });
      await h.client.publishEnvelope(
        { ...envelope, payload: { ...(envelope.payload as object), payment_id: 42 } },
        {},
      );
      const parked = await waitForParkedMessages(
        `${h.env.config.AMQP_PREFIX}payment.events.parking`,
        'the parked event',
      );
      expect(parked).toEqual([
        expect.objectContaining({ messageId: envelope.id, reason: expect.stringContaining('payment_id') }),
      ]);
    },
  );

  test('after losing its broker connection the service consumes rail events again', async () => {
    const businessId = await newBusiness(h.client);
    const pix = await create(h.client, businessId);
    const crypto = await create(h.client, businessId, { method: 'crypto', token: 'usdc' });
    h.service.broker.dropConnectionForTesting();
    await h.client.publish(pixChargePaid, aPixChargePaid(pix.payment));
    await h.client.publish(cryptoRequestClosed, aCryptoRequestClosed(crypto.payment, { reason: 'failed' }));
    await waitForStatus(businessId, pix.payment.payment_id, 'paid');
    await waitForStatus(businessId, crypto.payment.payment_id, 'failed');
  });
});
