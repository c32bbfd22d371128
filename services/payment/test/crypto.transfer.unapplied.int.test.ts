import {
  cryptoRequestClosed,
  cryptoRequestSettled,
  cryptoTransferUnapplied,
  newPublicId,
  type MessageDefinition,
} from '@gateway/contracts';
import { createEnvelope } from '@gateway/messaging';
import { metricsRegistry } from '@gateway/observability';
import { publishAndAwaitHandling, waitFor, waitForParkedMessages } from '@gateway/testkit';
import {
  create,
  emittedPaymentEvents,
  newBusiness,
  readPayment,
  startHarness,
  waitForPaymentStatus,
  type Harness,
} from './support/harness';
import {
  aCryptoRequestClosed,
  aCryptoRequestSettled,
  aCryptoTransferUnapplied,
  type ReportedPayment,
} from './support/rail-events';

describe('crypto.transfer.unapplied.v1', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness('payment-unapplied');
  });

  afterAll(() => h.close());

  const read = (businessId: string, paymentId: string) => readPayment(h.client, businessId, paymentId);
  const waitForStatus = (businessId: string, paymentId: string, status: string) =>
    waitForPaymentStatus(h.client, businessId, paymentId, status);

  const funds = (paymentId: string) =>
    h.service.dataSource.query(
      `SELECT kind, rail, rail_reference, amount_centavos, amount_base_units AS units, recorded_at
         FROM received_funds WHERE payment_id = $1 ORDER BY id`,
      [paymentId],
    );

  const waitForFunds = (paymentId: string, count: number) =>
    waitFor(
      async () => {
        const rows = await funds(paymentId);
        return rows.length >= count ? rows : undefined;
      },
      { what: `${count} funds record(s) of ${paymentId}` },
    );

  const events = (paymentId: string) => emittedPaymentEvents(h, paymentId);

  const lateFundsCount = async (): Promise<number> => {
    const metric = await metricsRegistry.getSingleMetric('payment_late_funds_total')?.get();
    return metric?.values.find((value) => value.labels.rail === 'crypto')?.value ?? 0;
  };

  const newCryptoPayment = async () => {
    const businessId = await newBusiness(h.client);
    const view = await create(h.client, businessId, { method: 'crypto', token: 'usdc' });
    return { businessId, payment: view.payment, paymentId: view.payment.payment_id };
  };

  const expire = async (businessId: string, payment: ReportedPayment) => {
    await h.client.publish(cryptoRequestClosed, aCryptoRequestClosed(payment));
    await waitForStatus(businessId, payment.payment_id, 'expired');
  };

  test('a transfer after expiry is recorded once as late funds, even delivered twice or re-sent; the payment stays expired', async () => {
    const { businessId, payment, paymentId } = await newCryptoPayment();
    await expire(businessId, payment);
    const before = await lateFundsCount();
    const event = aCryptoTransferUnapplied(payment, { detected_at: '2030-01-02T03:04:05.000Z' });
    const deliver = (messageId: string) =>
      publishAndAwaitHandling(h.env.config, cryptoTransferUnapplied, event, { messageId });
    const messageId = newPublicId('msg');
    await Promise.all([
      deliver(messageId),
      deliver(messageId),
      // The same transfer under another message id (a re-emitted event) is held by the received_funds key.
      deliver(newPublicId('msg')),
    ]);
    expect(await funds(paymentId)).toEqual([
      {
        kind: 'late',
        rail: 'crypto',
        rail_reference: event.signature,
        amount_centavos: null,
        units: '1000000',
        recorded_at: new Date(event.detected_at),
      },
    ]);
    expect(await lateFundsCount()).toBe(before + 1);
    expect((await read(businessId, paymentId)).payment).toMatchObject({
      status: 'expired',
      transaction_id: null,
    });
    expect(await events(paymentId)).toEqual(['payment.created.v1', 'payment.expired.v1']);
  });

  test('a transfer after settlement is late and the paid payment keeps its status and transaction id', async () => {
    const { businessId, payment, paymentId } = await newCryptoPayment();
    const settled = aCryptoRequestSettled(payment);
    await h.client.publish(cryptoRequestSettled, settled);
    await waitForStatus(businessId, paymentId, 'paid');
    const event = aCryptoTransferUnapplied(payment, { reason: 'after_settlement' });
    await h.client.publish(cryptoTransferUnapplied, event);
    const [row] = await waitForFunds(paymentId, 1);
    expect(row).toMatchObject({ kind: 'late', rail_reference: event.signature });
    expect((await read(businessId, paymentId)).payment).toMatchObject({
      status: 'paid',
      transaction_id: settled.signature,
    });
    expect(await events(paymentId)).toEqual(['payment.created.v1', 'payment.confirmed.v1']);
  });

  test('a transfer in another token is recorded as unmatched and the open payment stays pending', async () => {
    const { businessId, payment, paymentId } = await newCryptoPayment();
    const event = aCryptoTransferUnapplied(payment, {
      reason: 'wrong_mint',
      mint: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB',
    });
    await h.client.publish(cryptoTransferUnapplied, event);
    const [row] = await waitForFunds(paymentId, 1);
    expect(row).toMatchObject({ kind: 'unmatched', rail_reference: event.signature, units: '1000000' });
    expect((await read(businessId, paymentId)).payment.status).toBe('pending');
    expect(await events(paymentId)).toEqual(['payment.created.v1']);
  });

  test('a poison crypto.transfer.unapplied.v1 event is parked, not retried forever', async () => {
    const envelope = createEnvelope(
      cryptoTransferUnapplied as MessageDefinition<unknown>,
      aCryptoTransferUnapplied({ payment_id: newPublicId('pay'), external_id: 'r', amount_centavos: 1 }),
    );
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
  });

  test('after losing its broker connection the service records unapplied transfers again', async () => {
    const { businessId, payment, paymentId } = await newCryptoPayment();
    await expire(businessId, payment);
    h.service.broker.dropConnectionForTesting();
    const event = aCryptoTransferUnapplied(payment);
    await h.client.publish(cryptoTransferUnapplied, event);
    const [row] = await waitForFunds(paymentId, 1);
    expect(row).toMatchObject({ kind: 'late', rail_reference: event.signature });
    expect((await read(businessId, paymentId)).payment.status).toBe('expired');
  });
});
