import {
  cryptoRequestSettled,
  cryptoTransferUnapplied,
  listReceivedFunds,
  newPublicId,
  pixChargePaid,
} from '@gateway/contracts';
import { untilAnsweredOk, waitFor } from '@gateway/testkit';
import { paymentServiceForTheseTests } from './support/harness';
import {
  aCryptoRequestSettled,
  aCryptoTransferUnapplied,
  aPixChargePaid,
  type ReportedPayment,
} from './support/rail-events';

describe('payment.received-funds.list.v1', () => {
  const h = paymentServiceForTheseTests('payment-funds-list');

  const list = (
    businessId: string,
    paymentId: string,
    messageId?: string,
    page: { limit?: number; starting_after?: string | null } = {},
  ) =>
    h.request(listReceivedFunds, { business_id: businessId, payment_id: paymentId, ...page }, { messageId });

  const listed = (businessId: string, paymentId: string, count: number) =>
    waitFor(
      async () => {
        const reply = await list(businessId, paymentId, undefined, { limit: 100 });
        return reply.ok && reply.result.data.length >= count ? reply.result.data : undefined;
      },
      { what: `${count} funds record(s) listed` },
    );

  test('lists the excess and the late transfer of a crypto payment, newest first, with the token decimals', async () => {
    const businessId = await h.newBusiness();
    const view = await h.createPayment(businessId, { method: 'crypto', token: 'usdc' });
    const paymentId = view.payment.payment_id;
    const paid = aCryptoRequestSettled(view.payment, {
      received_base_units: '1250000',
      excess_base_units: '250000',
    });
    await h.client.publish(cryptoRequestSettled, paid);
    await listed(businessId, paymentId, 1);
    const late = aCryptoTransferUnapplied(view.payment, {
      amount_base_units: '3000000',
      reason: 'after_settlement',
      detected_at: '2099-01-01T00:00:00.000Z',
    });
    await h.client.publish(cryptoTransferUnapplied, late);
    expect(await listed(businessId, paymentId, 2)).toEqual([
      {
        funds_id: expect.stringMatching(/^fund_[A-Za-z0-9_-]{24,64}$/),
        kind: 'late',
        rail: 'crypto',
        reference: late.signature,
        instruction: null,
        amount_centavos: null,
        amount_base_units: '3000000',
        decimals: 6,
        detected_at: '2099-01-01T00:00:00.000Z',
        status: 'held',
        returned_by: null,
        returned_at: null,
        // After the window, reported with no quote (as an older watcher did): not valued.
        valued_centavos: null,
        quote: null,
      },
      {
        funds_id: expect.stringMatching(/^fund_[A-Za-z0-9_-]{24,64}$/),
        kind: 'excess',
        rail: 'crypto',
        reference: paid.signature,
        instruction: null,
        amount_centavos: null,
        amount_base_units: '250000',
        decimals: 6,
        detected_at: expect.any(String),
        status: 'held',
        returned_by: null,
        returned_at: null,
        // Within the window: at the quote the payment locked.
        valued_centavos: 2500,
        quote: null,
      },
    ]);
  });

  test('lists a partial PIX in centavos; nothing for a clean payment; NOT_FOUND for another business', async () => {
    const businessId = await h.newBusiness();
    const clean = await h.createPayment(businessId);
    const view = await h.createPayment(businessId);
    const paymentId = view.payment.payment_id;
    const partial = aPixChargePaid(view.payment, { amount_centavos: 4000 });
    await h.client.publish(pixChargePaid, partial);
    expect(await listed(businessId, paymentId, 1)).toEqual([
      {
        funds_id: expect.stringMatching(/^fund_/),
        kind: 'partial',
        rail: 'pix',
        reference: partial.end_to_end_id,
        instruction: null,
        amount_centavos: 4000,
        amount_base_units: null,
        decimals: null,
        detected_at: expect.any(String),
        status: 'held',
        returned_by: null,
        returned_at: null,
        valued_centavos: 4000,
        quote: null,
      },
    ]);
    const messageId = newPublicId('cmd');
    const first = await list(businessId, clean.payment.payment_id, messageId);
    expect(first).toEqual({ ok: true, result: { data: [], has_more: false } });
    expect(await list(businessId, clean.payment.payment_id, messageId)).toEqual(first);
    expect(await list(newPublicId('biz'), paymentId)).toEqual({
      ok: false,
      error: expect.objectContaining({ code: 'NOT_FOUND' }),
    });
  });

  /** `count` late transfers to the payment; the first `sameInstant` share one detection time (ties go by insertion). */
  const lateTransfers = async (
    businessId: string,
    view: { payment: ReportedPayment },
    count: number,
    sameInstant: number,
  ) => {
    const signatures: string[] = [];
    for (let n = 0; n < count; n += 1) {
      const signature = `${n}`.padStart(4, '0').padEnd(87, '7');
      signatures.push(signature);
      const minute = Math.max(0, n - sameInstant + 1);
      await h.client.publish(
        cryptoTransferUnapplied,
        aCryptoTransferUnapplied(view.payment, {
          signature,
          amount_base_units: String(1000 + n),
          detected_at: new Date(Date.UTC(2030, 0, 1, 0, minute)).toISOString(),
        }),
      );
      // One at a time, so insertion order (the tie-break) is the publishing order.
      await listed(businessId, view.payment.payment_id, n + 1);
    }
    // Newest first: later detection first, and among equal times the later record first.
    return [...signatures].reverse();
  };

  test('a page holds at most `limit` records (10 by default), says has_more, and starting_after walks the rest without gaps or repeats', async () => {
    const businessId = await h.newBusiness();
    const view = await h.createPayment(businessId, { method: 'crypto', token: 'usdc' });
    const paymentId = view.payment.payment_id;
    const newestFirst = await lateTransfers(businessId, view, 13, 4);

    const firstPage = await list(businessId, paymentId);
    expect(firstPage.ok && firstPage.result.has_more).toBe(true);
    const defaultPage = firstPage.ok ? firstPage.result.data : [];
    expect(defaultPage.map((item) => item.reference)).toEqual(newestFirst.slice(0, 10));

    const walked: string[] = [];
    let after: string | null = null;
    for (let pages = 0; pages < 10; pages += 1) {
      const reply = await list(businessId, paymentId, undefined, { limit: 4, starting_after: after });
      if (!reply.ok) throw new Error(reply.error.message);
      expect(reply.result.data.length).toBeLessThanOrEqual(4);
      walked.push(...reply.result.data.map((item) => item.reference));
      if (!reply.result.has_more) break;
      after = reply.result.data.at(-1)!.funds_id;
    }
    expect(walked).toEqual(newestFirst);

    const last = await list(businessId, paymentId, undefined, { limit: 1, starting_after: null });
    expect(last.ok && last.result).toEqual({
      data: [expect.objectContaining({ reference: newestFirst[0] })],
      has_more: true,
    });
    const whole = await list(businessId, paymentId, undefined, { limit: 100 });
    expect(whole.ok && whole.result.has_more).toBe(false);
    expect(whole.ok && whole.result.data.map((item) => item.reference)).toEqual(newestFirst);
  });

  test('a limit outside 1-100 is refused by the contract, and a starting_after of another payment is INVALID_FIELDS', async () => {
    const businessId = await h.newBusiness();
    const view = await h.createPayment(businessId, { method: 'crypto', token: 'usdc' });
    const other = await h.createPayment(businessId, { method: 'crypto', token: 'usdc' });
    await lateTransfers(businessId, other, 1, 1);
    const otherReply = await list(businessId, other.payment.payment_id);
    const foreignCursor = otherReply.ok ? otherReply.result.data[0]!.funds_id : '';
    expect(
      await list(businessId, view.payment.payment_id, undefined, { starting_after: foreignCursor }),
    ).toEqual({
      ok: false,
      error: expect.objectContaining({
        code: 'INVALID_FIELDS',
        message: expect.stringContaining('starting_after'),
      }),
    });
    for (const limit of [0, 101, 2.5]) {
      await expect(list(businessId, view.payment.payment_id, undefined, { limit })).rejects.toThrow(/limit/);
    }
  });

  test('a poison payment.received-funds.list.v1 message is parked and answered instead of being retried', async () => {
    const { messageId, parked } = await h.publishPoisoned(
      'commands',
      listReceivedFunds,
      { business_id: newPublicId('biz'), payment_id: 'pay_x' },
      { business_id: 42 },
    );
    expect(parked).toEqual([
      expect.objectContaining({ messageId, reason: expect.stringContaining('business_id') }),
    ]);
  });

  test('after losing its broker connection the service answers the list again', async () => {
    const businessId = await h.newBusiness();
    const view = await h.createPayment(businessId);
    h.service.broker.dropConnectionForTesting();
    const reply = await untilAnsweredOk(() =>
      h.request(
        listReceivedFunds,
        { business_id: businessId, payment_id: view.payment.payment_id },
        { timeoutMs: 1000 },
      ),
    );
    expect(reply.result).toEqual({ data: [], has_more: false });
  });
});
