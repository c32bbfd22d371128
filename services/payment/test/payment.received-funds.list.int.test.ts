import {
  cryptoRequestSettled,
  cryptoTransferUnapplied,
  listReceivedFunds,
  newPublicId,
  pixChargePaid,
  type MessageDefinition,
} from '@gateway/contracts';
import { createEnvelope } from '@gateway/messaging';
import { untilAnsweredOk, waitFor, waitForParkedMessages } from '@gateway/testkit';
import { create, newBusiness, startHarness, type Harness } from './support/harness';

describe('payment.received-funds.list.v1', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness('payment-funds-list');
  });

  afterAll(() => h.close());

  const list = (businessId: string, paymentId: string, messageId?: string) =>
    h.client.request(
      listReceivedFunds,
      { business_id: businessId, payment_id: paymentId },
      { timeoutMs: 5000, messageId },
    );

  const listed = (businessId: string, paymentId: string, count: number) =>
    waitFor(
      async () => {
        const reply = await list(businessId, paymentId);
        return reply.ok && reply.result.data.length >= count ? reply.result.data : undefined;
      },
      { what: `${count} funds record(s) listed` },
    );

  test('lists the excess and the late transfer of a crypto payment, oldest first, with the token decimals', async () => {
    const businessId = await newBusiness(h.client);
    const view = await create(h.client, businessId, { method: 'crypto', token: 'usdc' });
    const paymentId = view.payment.payment_id;
    const paid = '5'.repeat(87);
    await h.client.publish(cryptoRequestSettled, {
      payment_id: paymentId,
      reference: view.payment.external_id!,
      signature: paid,
      received_base_units: '1250000',
      excess_base_units: '250000',
      settled_at: new Date().toISOString(),
    });
    await listed(businessId, paymentId, 1);
    const late = '6'.repeat(87);
    await h.client.publish(cryptoTransferUnapplied, {
      payment_id: paymentId,
      reference: view.payment.external_id!,
      signature: late,
      amount_base_units: '3000000',
      mint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
      reason: 'after_settlement',
      detected_at: '2099-01-01T00:00:00.000Z',
    });
    expect(await listed(businessId, paymentId, 2)).toEqual([
      {
        kind: 'excess',
        rail: 'crypto',
        reference: paid,
        amount_centavos: null,
        amount_base_units: '250000',
        decimals: 6,
        detected_at: expect.any(String),
      },
      {
        kind: 'late',
        rail: 'crypto',
        reference: late,
        amount_centavos: null,
        amount_base_units: '3000000',
        decimals: 6,
        detected_at: '2099-01-01T00:00:00.000Z',
      },
    ]);
  });

  test('lists a partial PIX in centavos; nothing for a clean payment; NOT_FOUND for another business', async () => {
    const businessId = await newBusiness(h.client);
    const clean = await create(h.client, businessId);
    const view = await create(h.client, businessId);
    const paymentId = view.payment.payment_id;
    const endToEndId = `E${'1'.repeat(31)}`;
    await h.client.publish(pixChargePaid, {
      payment_id: paymentId,
      txid: view.payment.external_id!,
      end_to_end_id: endToEndId,
      amount_centavos: 4000,
      paid_at: new Date().toISOString(),
    });
    expect(await listed(businessId, paymentId, 1)).toEqual([
      {
        kind: 'partial',
        rail: 'pix',
        reference: endToEndId,
        amount_centavos: 4000,
        amount_base_units: null,
        decimals: null,
        detected_at: expect.any(String),
      },
    ]);
    const messageId = newPublicId('cmd');
    const first = await list(businessId, clean.payment.payment_id, messageId);
    expect(first).toEqual({ ok: true, result: { data: [] } });
    expect(await list(businessId, clean.payment.payment_id, messageId)).toEqual(first);
    expect(await list(newPublicId('biz'), paymentId)).toEqual({
      ok: false,
      error: expect.objectContaining({ code: 'NOT_FOUND' }),
    });
  });

  test('a poison payment.received-funds.list.v1 message is parked and answered instead of being retried', async () => {
    const payload = { business_id: newPublicId('biz'), payment_id: 'pay_x' };
    const envelope = createEnvelope(listReceivedFunds as MessageDefinition<unknown>, payload);
    await h.client.publishEnvelope({ ...envelope, payload: { ...payload, business_id: 42 } }, {});
    const parked = await waitForParkedMessages(
      `${h.env.config.AMQP_PREFIX}payment.commands.parking`,
      'the parked command',
    );
    expect(parked).toEqual([
      expect.objectContaining({ messageId: envelope.id, reason: expect.stringContaining('business_id') }),
    ]);
  });

  test('after losing its broker connection the service answers the list again', async () => {
    const businessId = await newBusiness(h.client);
    const view = await create(h.client, businessId);
    h.service.broker.dropConnectionForTesting();
    const reply = await untilAnsweredOk(() =>
      h.client.request(
        listReceivedFunds,
        { business_id: businessId, payment_id: view.payment.payment_id },
        { timeoutMs: 1000 },
      ),
    );
    expect(reply.result).toEqual({ data: [] });
  });
});
