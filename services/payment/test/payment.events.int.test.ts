import {
  cryptoRequestClosed,
  cryptoRequestSettled,
  newPublicId,
  pixChargeClosed,
  pixChargePaid,
  type MessageDefinition,
  type PaymentView,
} from '@gateway/contracts';
import { createEnvelope } from '@gateway/messaging';
import { waitFor, waitForParkedMessages } from '@gateway/testkit';
import {
  create,
  emittedPaymentEvents,
  newBusiness,
  readPayment,
  startHarness,
  waitForPaymentStatus,
  type Harness,
} from './support/harness';

describe('payment service rail events', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness('payment-evt');
  });

  afterAll(() => h.close());

  const publish = <P>(definition: MessageDefinition<P>, payload: P, messageId = newPublicId('msg')) =>
    h.client.publish(definition, payload, { messageId });

  const read = (businessId: string, paymentId: string) => readPayment(h.client, businessId, paymentId);
  const waitForStatus = (businessId: string, paymentId: string, status: string) =>
    waitForPaymentStatus(h.client, businessId, paymentId, status);

  const events = (paymentId: string) => emittedPaymentEvents(h, paymentId);

  const funds = (paymentId: string) =>
    h.service.dataSource.query(
      `SELECT kind, rail_reference, amount_centavos::int AS centavos, amount_base_units AS units
         FROM received_funds WHERE payment_id = $1 ORDER BY id`,
      [paymentId],
    );

  const settle = async () => new Promise((resolve) => setTimeout(resolve, 300));

  const pixPaid = (view: PaymentView, amount = view.payment.amount_centavos) => ({
    payment_id: view.payment.payment_id,
    txid: view.payment.external_id!,
    end_to_end_id: `E${newPublicId('e')
      .replace(/[^A-Za-z0-9]/g, '')
      .slice(0, 31)
      .padEnd(31, '0')}`,
    amount_centavos: amount,
    paid_at: new Date().toISOString(),
  });

  describe('pix.charge.paid.v1', () => {
    test('the full amount pays the payment with the endToEndId, and a redelivery confirms nothing more', async () => {
      const businessId = await newBusiness(h.client);
      const view = await create(h.client, businessId);
      const paid = pixPaid(view);
      const messageId = newPublicId('msg');
      await publish(pixChargePaid, paid, messageId);
      await publish(pixChargePaid, paid, messageId);
      const confirmed = await waitForStatus(businessId, view.payment.payment_id, 'paid');
      expect(confirmed.payment.transaction_id).toBe(paid.end_to_end_id);
      await settle();
      expect(await events(view.payment.payment_id)).toEqual(['payment.created.v1', 'payment.confirmed.v1']);
    });

    test('a lower amount is recorded as partial and the payment stays open; the expiry then fails it UNDERPAID', async () => {
      const businessId = await newBusiness(h.client);
      const view = await create(h.client, businessId);
      const partial = pixPaid(view, 4000);
      await publish(pixChargePaid, partial);
      await waitFor(async () => (await funds(view.payment.payment_id)).length === 1, {
        what: 'partial funds',
      });
      expect((await read(businessId, view.payment.payment_id)).payment.status).toBe('processing');
      await publish(pixChargeClosed, {
        payment_id: view.payment.payment_id,
        txid: partial.txid,
        reason: 'expired',
        detail: null,
        received_pix: [],
      });
      const failed = await waitForStatus(businessId, view.payment.payment_id, 'failed');
      expect(failed.payment.failure_code).toBe('UNDERPAID');
    });

    test('a PIX confirmed after expiry is recorded as late funds and the payment stays expired', async () => {
      const businessId = await newBusiness(h.client);
      const view = await create(h.client, businessId);
      await publish(pixChargeClosed, {
        payment_id: view.payment.payment_id,
        txid: view.payment.external_id!,
        reason: 'expired',
        detail: null,
        received_pix: [],
      });
      await waitForStatus(businessId, view.payment.payment_id, 'expired');
      const late = pixPaid(view);
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
        publish(pixChargePaid, pixPaid(view)),
        publish(pixChargeClosed, {
          payment_id: view.payment.payment_id,
          txid: view.payment.external_id!,
          reason: 'expired',
          detail: null,
          received_pix: [],
        }),
      ]);
      await waitFor(async () => (await events(view.payment.payment_id)).length === 2, {
        what: 'a final event',
      });
      await settle();
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
      const closed = {
        payment_id: view.payment.payment_id,
        txid: view.payment.external_id!,
        reason: 'failed' as const,
        detail: 'REMOVIDA_PELO_PSP',
        received_pix: [],
      };
      const messageId = newPublicId('msg');
      await publish(pixChargeClosed, closed, messageId);
      await publish(pixChargeClosed, closed, messageId);
      const failed = await waitForStatus(businessId, view.payment.payment_id, 'failed');
      expect(failed.payment).toMatchObject({ failure_code: 'RAIL_FAILED' });
      await settle();
      expect(await events(view.payment.payment_id)).toEqual(['payment.created.v1', 'payment.failed.v1']);
    });
  });

  describe('crypto.request.settled.v1', () => {
    test('pays with the signature and records the excess, once per delivery', async () => {
      const businessId = await newBusiness(h.client);
      const view = await create(h.client, businessId, { method: 'crypto', token: 'usdc' });
      const settled = {
        payment_id: view.payment.payment_id,
        reference: view.payment.external_id!,
        signature: '5'.repeat(87),
        received_base_units: '1500000',
        excess_base_units: '500000',
        settled_at: new Date().toISOString(),
      };
      const messageId = newPublicId('msg');
      await publish(cryptoRequestSettled, settled, messageId);
      await publish(cryptoRequestSettled, settled, messageId);
      const paid = await waitForStatus(businessId, view.payment.payment_id, 'paid');
      expect(paid.payment.transaction_id).toBe(settled.signature);
      await settle();
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
      const closed = {
        payment_id: underpaid.payment.payment_id,
        reference: underpaid.payment.external_id!,
        reason: 'underpaid' as const,
        received_base_units: '300000',
      };
      await publish(cryptoRequestClosed, closed, messageId);
      await publish(cryptoRequestClosed, closed, messageId);
      await publish(cryptoRequestClosed, {
        payment_id: expired.payment.payment_id,
        reference: expired.payment.external_id!,
        reason: 'expired',
        received_base_units: '0',
      });
      const failed = await waitForStatus(businessId, underpaid.payment.payment_id, 'failed');
      expect(failed.payment.failure_code).toBe('UNDERPAID');
      await waitForStatus(businessId, expired.payment.payment_id, 'expired');
      await settle();
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
    await h.client.publish(pixChargePaid, pixPaid(pix));
    await h.client.publish(cryptoRequestClosed, {
      payment_id: crypto.payment.payment_id,
      reference: crypto.payment.external_id!,
      reason: 'failed',
      received_base_units: '0',
    });
    await waitForStatus(businessId, pix.payment.payment_id, 'paid');
    await waitForStatus(businessId, crypto.payment.payment_id, 'failed');
  });
});
