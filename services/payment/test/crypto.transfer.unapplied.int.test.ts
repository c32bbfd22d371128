import {
  cryptoRequestClosed,
  cryptoRequestSettled,
  cryptoTransferUnapplied,
  newPublicId,
  type CryptoTransferUnapplied,
  type MessageDefinition,
} from '@gateway/contracts';
import { createEnvelope } from '@gateway/messaging';
import { metricsRegistry } from '@gateway/observability';
import { sleep, waitFor, waitForParkedMessages } from '@gateway/testkit';
import {
  create,
  emittedPaymentEvents,
  newBusiness,
  readPayment,
  startHarness,
  waitForPaymentStatus,
  type Harness,
} from './support/harness';

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
    return { businessId, paymentId: view.payment.payment_id, reference: view.payment.external_id! };
  };

  const expire = async (businessId: string, paymentId: string, reference: string) => {
    await h.client.publish(cryptoRequestClosed, {
      payment_id: paymentId,
      reference,
      reason: 'expired',
      received_base_units: '0',
    });
    await waitForStatus(businessId, paymentId, 'expired');
  };

  const unapplied = (
    paymentId: string,
    reference: string,
    overrides: Partial<CryptoTransferUnapplied> = {},
  ): CryptoTransferUnapplied => ({
    payment_id: paymentId,
    reference,
    signature: newPublicId('sig').replace(/[^A-Za-z0-9]/g, ''),
    amount_base_units: '1000000',
    mint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    reason: 'after_expiry',
    detected_at: '2030-01-02T03:04:05.000Z',
    ...overrides,
  });

  test('a transfer after expiry is recorded once as late funds, even delivered twice or re-sent; the payment stays expired', async () => {
    const { businessId, paymentId, reference } = await newCryptoPayment();
    await expire(businessId, paymentId, reference);
    const before = await lateFundsCount();
    const event = unapplied(paymentId, reference);
    const messageId = newPublicId('msg');
    await h.client.publish(cryptoTransferUnapplied, event, { messageId });
    await h.client.publish(cryptoTransferUnapplied, event, { messageId });
    // The same transfer under another message id (a re-emitted event) is held by the received_funds key.
    await h.client.publish(cryptoTransferUnapplied, event);
    await waitForFunds(paymentId, 1);
    await sleep(300);
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
    const { payment } = await read(businessId, paymentId);
    expect(payment).toMatchObject({ status: 'expired', transaction_id: null });
    expect(await events(paymentId)).toEqual(['payment.created.v1', 'payment.expired.v1']);
  });

  test('a transfer after settlement is late and the paid payment keeps its status and transaction id', async () => {
    const { businessId, paymentId, reference } = await newCryptoPayment();
    const paidSignature = '5'.repeat(87);
    await h.client.publish(cryptoRequestSettled, {
      payment_id: paymentId,
      reference,
      signature: paidSignature,
      received_base_units: '1000000',
      excess_base_units: '0',
      settled_at: new Date().toISOString(),
    });
    await waitForStatus(businessId, paymentId, 'paid');
    const event = unapplied(paymentId, reference, { reason: 'after_settlement' });
    await h.client.publish(cryptoTransferUnapplied, event);
    const [row] = await waitForFunds(paymentId, 1);
    expect(row).toMatchObject({ kind: 'late', rail_reference: event.signature });
    expect((await read(businessId, paymentId)).payment).toMatchObject({
      status: 'paid',
      transaction_id: paidSignature,
    });
    expect(await events(paymentId)).toEqual(['payment.created.v1', 'payment.confirmed.v1']);
  });

  test('a transfer in another token is recorded as unmatched and the open payment stays pending', async () => {
    const { businessId, paymentId, reference } = await newCryptoPayment();
    const event = unapplied(paymentId, reference, {
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
      unapplied(newPublicId('pay'), 'r'),
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
    const { businessId, paymentId, reference } = await newCryptoPayment();
    await expire(businessId, paymentId, reference);
    h.service.broker.dropConnectionForTesting();
    const event = unapplied(paymentId, reference);
    await h.client.publish(cryptoTransferUnapplied, event);
    const [row] = await waitForFunds(paymentId, 1);
    expect(row).toMatchObject({ kind: 'late', rail_reference: event.signature });
    expect((await read(businessId, paymentId)).payment.status).toBe('expired');
  });
});
