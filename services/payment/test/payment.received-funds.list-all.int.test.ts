import {
  assignReceivedFunds,
  cryptoTransferUnapplied,
  listAllReceivedFunds,
  listReceivedFunds,
  newPublicId,
  returnReceivedFunds,
  type ListAllReceivedFunds,
  type OperatorReceivedFundsItem,
  type Page,
  type Reply,
} from '@gateway/contracts';
import { waitFor } from '@gateway/testkit';
import { paymentServiceForTheseTests } from './support/harness';
import { aCryptoTransferUnapplied } from './support/rail-events';

// The operator's list: money kept outside the happy path across every business, above all the transactions the
// watcher could not read yet (kind `unreadable`), each with the payment and the business it is held for.
describe('payment.received-funds.list-all.v1', () => {
  const h = paymentServiceForTheseTests('payment-funds-list-all');

  const listAll = async (query: Partial<ListAllReceivedFunds> = {}): Promise<OperatorReceivedFundsItem[]> => {
    const reply = await h.request(listAllReceivedFunds, { limit: 100, starting_after: null, ...query });
    if (!reply.ok) throw new Error(reply.error.message);
    return reply.result.data;
  };

  /** A crypto payment of a new business with one record of `reason`, once the payment service holds it. */
  const fundsOf = async (reason: 'unreadable' | 'after_settlement') => {
    const businessId = await h.newBusiness();
    const view = await h.createPayment(businessId, { method: 'crypto', token: 'usdc' });
    const transfer = aCryptoTransferUnapplied(view.payment, {
      reason,
      amount_base_units: reason === 'unreadable' ? null : '2500000',
      // Valued at the quote of its arrival (one USDC for R$ 5), so it can be returned by hand.
      ...(reason === 'unreadable'
        ? {}
        : { quote: { token: 'usdc' as const, token_per_brl: '1/5', quoted_at: new Date().toISOString() } }),
    });
    await h.client.publish(cryptoTransferUnapplied, transfer);
    const [record] = await waitFor(
      async () => {
        const reply = await h.request(listReceivedFunds, {
          business_id: businessId,
          payment_id: view.payment.payment_id,
          limit: 10,
        });
        return reply.ok && reply.result.data.length > 0 ? reply.result.data : undefined;
      },
      { what: `the ${reason} funds recorded` },
    );
    return { businessId, paymentId: view.payment.payment_id, signature: transfer.signature, record: record! };
  };

  test("lists every business's unreadable transactions with their payment and business, and no other kind", async () => {
    const first = await fundsOf('unreadable');
    const second = await fundsOf('unreadable');
    const late = await fundsOf('after_settlement');

    const unreadable = await listAll({ kind: 'unreadable' });

    expect(unreadable.every((item) => item.kind === 'unreadable')).toBe(true);
    const ours = unreadable.filter((item) => [first.paymentId, second.paymentId].includes(item.payment_id));
    // Newest first: the second was recorded after the first.
    expect(ours).toEqual([
      {
        ...second.record,
        payment_id: second.paymentId,
        business_id: second.businessId,
        return_reference: null,
        return_failure_reason: null,
      },
      {
        ...first.record,
        payment_id: first.paymentId,
        business_id: first.businessId,
        return_reference: null,
        return_failure_reason: null,
      },
    ]);
    expect(ours[0]).toMatchObject({ reference: second.signature, amount_base_units: null, status: 'held' });
    expect(unreadable.some((item) => item.payment_id === late.paymentId)).toBe(false);
    expect(await listAll()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ funds_id: late.record.funds_id, kind: 'late', decimals: 6 }),
        expect.objectContaining({ funds_id: first.record.funds_id, kind: 'unreadable' }),
      ]),
    );
  });

  test('a status narrows the list: money returned by hand leaves the held list for the returned one', async () => {
    const late = await fundsOf('after_settlement');
    const returned = await h.request(returnReceivedFunds, {
      business_id: late.businessId,
      payment_id: late.paymentId,
      funds_id: late.record.funds_id,
    });
    expect(returned.ok).toBe(true);

    const ids = (items: OperatorReceivedFundsItem[]) => items.map((item) => item.funds_id);
    expect(ids(await listAll({ status: 'held' }))).not.toContain(late.record.funds_id);
    expect(await listAll({ kind: 'late', status: 'returned' })).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          funds_id: late.record.funds_id,
          status: 'returned',
          returned_by: 'manual',
        }),
      ]),
    );
    expect(ids(await listAll({ status: 'returning' }))).not.toContain(late.record.funds_id);
  });

  test('money naming a payment the gateway does not know is listed, of no business, with its token amount', async () => {
    const unknown = newPublicId('pay');
    const transfer = aCryptoTransferUnapplied(
      { payment_id: unknown, external_id: 'RefOfNoPayment1111111111111111111111111111' } as never,
      { reason: 'after_expiry', amount_base_units: '777' },
    );
    await h.client.publish(cryptoTransferUnapplied, transfer);
    const listed = await waitFor(
      async () => (await listAll({ kind: 'unmatched' })).find((item) => item.payment_id === unknown),
      { what: 'the funds of an unknown payment listed' },
    );
    expect(listed).toMatchObject({
      payment_id: unknown,
      business_id: null,
      reference: transfer.signature,
      amount_base_units: '777',
      decimals: null,
      status: 'held',
    });
    expect((await listAll()).some((item) => item.payment_id === unknown)).toBe(true);
    expect((await listAll({ status: 'held' })).some((item) => item.payment_id === unknown)).toBe(true);
  });

  test("one instruction's money kept by two payments is returned by hand through neither, and once the operator assigns it, held on none", async () => {
    const signature = `${Date.now()}`.padEnd(87, '8');
    const kept = [];
    for (const name of ['A', 'B']) {
      const businessId = await h.newBusiness();
      const view = await h.createPayment(businessId, { method: 'crypto', token: 'usdc' });
      await h.client.publish(
        cryptoTransferUnapplied,
        aCryptoTransferUnapplied(view.payment, {
          reason: 'ambiguous',
          signature,
          instruction: '1',
          quote: { token: 'usdc', token_per_brl: '1/5', quoted_at: new Date().toISOString() },
        }),
      );
      const [record] = await waitFor(
        async () => {
          const reply = await h.request(listReceivedFunds, {
            business_id: businessId,
            payment_id: view.payment.payment_id,
            limit: 10,
          });
          return reply.ok && reply.result.data.length > 0 ? reply.result.data : undefined;
        },
        { what: `payment ${name}'s unmatched funds` },
      );
      kept.push({ businessId, paymentId: view.payment.payment_id, record: record! });
    }
    const [a, b] = kept as [(typeof kept)[0], (typeof kept)[0]];
    const ours = (items: OperatorReceivedFundsItem[]) =>
      items.filter((item) => item.reference === signature).map((item) => [item.payment_id, item.status]);
    expect(ours(await listAll({ status: 'held' })).sort()).toEqual(
      [
        [a.paymentId, 'held'],
        [b.paymentId, 'held'],
      ].sort(),
    );

    // No business takes it by its own word; the operator assigns it, through A.
    const byHand = await h.request(returnReceivedFunds, {
      business_id: a.businessId,
      payment_id: a.paymentId,
      funds_id: a.record.funds_id,
    });
    expect(byHand).toMatchObject({ ok: false, error: { code: 'INVALID_STATUS' } });
    expect(ours(await listAll({ status: 'held' })).sort()).toEqual(
      [
        [a.paymentId, 'held'],
        [b.paymentId, 'held'],
      ].sort(),
    );
    const assigned = await h.request(assignReceivedFunds, { funds_id: a.record.funds_id });
    expect(assigned.ok).toBe(true);

    expect(ours(await listAll({ status: 'held' }))).toEqual([]);
    expect(ours(await listAll({ status: 'assigned' })).sort()).toEqual(
      [
        [a.paymentId, 'assigned'],
        [b.paymentId, 'assigned'],
      ].sort(),
    );
    const againThroughB = await h.request(returnReceivedFunds, {
      business_id: b.businessId,
      payment_id: b.paymentId,
      funds_id: b.record.funds_id,
    });
    expect(againThroughB).toMatchObject({ ok: false, error: { code: 'INVALID_STATUS' } });
  });

  test('pages newest first without gaps or repeats; an unknown starting_after is INVALID_FIELDS', async () => {
    for (let n = 0; n < 3; n += 1) await fundsOf('unreadable');
    const whole = await listAll({ kind: 'unreadable' });
    expect(whole.length).toBeGreaterThanOrEqual(3);

    const walked: string[] = [];
    let after: string | null = null;
    for (let pages = 0; pages < 100; pages += 1) {
      const reply: Reply<Page<OperatorReceivedFundsItem>> = await h.request(listAllReceivedFunds, {
        kind: 'unreadable',
        limit: 2,
        starting_after: after,
      });
      if (!reply.ok) throw new Error(reply.error.message);
      walked.push(...reply.result.data.map((item) => item.funds_id));
      if (!reply.result.has_more) break;
      after = reply.result.data.at(-1)!.funds_id;
    }
    expect(walked).toEqual(whole.map((item) => item.funds_id));

    expect(await h.request(listAllReceivedFunds, { limit: 10, starting_after: newPublicId('fund') })).toEqual(
      {
        ok: false,
        error: expect.objectContaining({
          code: 'INVALID_FIELDS',
          message: expect.stringContaining('starting_after'),
        }),
      },
    );
  });
});
