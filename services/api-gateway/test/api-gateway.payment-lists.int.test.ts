import {
  getPayment,
  listPayments,
  readPaymentChanges,
  type PaymentChangesPage,
  type PaymentRecord,
  type ReadPaymentChanges,
} from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import { aPaymentRecord, aPixInstructions, waitFor } from '@gateway/testkit';
import { harnessWithMerchantForTheseTests } from './support/harness';

const MAX_AGE_MS = 3000;

/**
 * Payment lists from the gateway's copies, kept complete by the payment service's change feed
 * (docs/adr/0043-payment-lists-from-the-change-feed.md), against a fake payment service whose feed the tests write:
 * which lists the copies answer, in what order, and how they rebuild.
 */
describe('api gateway: payment lists from its copies', () => {
  const h = harnessWithMerchantForTheseTests('gw-lists', {
    merchant: 'Mercearia Lista',
    config: { PAYMENT_COPY_MAX_AGE_MS: MAX_AGE_MS, PAYMENT_COPY_CATCH_UP_INTERVAL_MS: 100 },
  });

  /** The fake feed: each payment at the transaction id of its last write; `settledBelow` as the feed answers it. */
  let feed: Array<{ xid: bigint; record: PaymentRecord }> = [];
  let settledBelow: bigint | null = null;
  let feedDown = false;
  let xid = 100n;
  const write = (record: PaymentRecord, at = (xid += 1n)) => {
    feed = [...feed.filter((entry) => entry.record.payment_id !== record.payment_id), { xid: at, record }];
    return at;
  };
  const answerFeed = async (query: ReadPaymentChanges): Promise<PaymentChangesPage> => {
    if (feedDown) throw new CommandError('INTERNAL_ERROR', 'the payment database is away');
    const after = (entry: { xid: bigint; record: PaymentRecord }) =>
      entry.xid > BigInt(query.after.xid) ||
      (entry.xid === BigInt(query.after.xid) && entry.record.payment_id > query.after.payment_id);
    const ordered = feed
      .filter(after)
      .sort((a, b) =>
        a.xid === b.xid ? (a.record.payment_id < b.record.payment_id ? -1 : 1) : a.xid < b.xid ? -1 : 1,
      );
    const page = ordered.slice(0, query.limit);
    const last = page.at(-1);
    return {
      payments: page.map((entry) => ({ payment: entry.record, pix: aPixInstructions() })),
      last: last ? { xid: String(last.xid), payment_id: last.record.payment_id } : null,
      settled_below: String(settledBelow ?? xid + 1n),
      has_more: ordered.length > query.limit,
    };
  };

  const list = (query = '') => h.http.get(`/v1/payments${query}`).set('x-api-key', h.merchant.api_key);
  const askedToList = () => h.fakes.receivedOf(listPayments).length;
  const ids = (body: { data: Array<{ payment_id: string }> }) =>
    body.data.map((payment) => payment.payment_id);
  const mine = (overrides: Partial<PaymentRecord>) =>
    aPaymentRecord({
      business_id: h.merchant.business_id,
      version: 1,
      refund_reserved_centavos: 0,
      refunded_centavos: 0,
      ...overrides,
    });
  /** Waits until a list answered from the copies shows `expected` (the payment service answers an empty page). */
  const listedFromCopies = (query: string, expected: string[]) =>
    waitFor(
      async () => {
        const response = await list(query);
        return response.status === 200 && JSON.stringify(ids(response.body)) === JSON.stringify(expected)
          ? response.body
          : undefined;
      },
      { timeoutMs: 15_000, what: `the list ${query} from the copies` },
    );

  beforeEach(() => {
    feedDown = false;
    settledBelow = null;
    h.fakes.on(readPaymentChanges, answerFeed);
    h.fakes.on(listPayments, async () => ({ data: [], has_more: false }));
  });

  test("the business's payments, newest first with the payment service's filters and paging, without asking it", async () => {
    const base = Date.parse('2026-11-01T12:00:00.000Z');
    const at = (minutes: number) => new Date(base + minutes * 60_000).toISOString();
    const records = [
      mine({ created_at: at(0), status: 'paid' }),
      mine({ created_at: at(1), method: 'crypto', token: 'usdc' }),
      mine({ created_at: at(2), status: 'expired' }),
      // Two made in the same millisecond: the id breaks the tie, as in the payment service.
      mine({ created_at: at(3), status: 'paid' }),
      mine({ created_at: at(3), status: 'paid', method: 'crypto', token: 'usdt' }),
      mine({ created_at: at(4) }),
    ];
    for (const record of records) write(record);
    write(aPaymentRecord({ created_at: at(5), version: 1, refund_reserved_centavos: 0 }));
    const newestFirst = [...records]
      .sort((a, b) =>
        a.created_at === b.created_at
          ? a.payment_id < b.payment_id
            ? 1
            : -1
          : a.created_at < b.created_at
            ? 1
            : -1,
      )
      .map((record) => record.payment_id);
    const window = `created_gte=${encodeURIComponent(at(0))}&created_lt=${encodeURIComponent(at(5))}`;
    await listedFromCopies(`?${window}&limit=100`, newestFirst);
    const before = askedToList();

    const paid = records.filter((r) => r.status === 'paid').map((r) => r.payment_id);
    const paidNewestFirst = newestFirst.filter((id) => paid.includes(id));
    expect(ids((await list(`?${window}&status=paid`)).body)).toEqual(paidNewestFirst);
    const crypto = newestFirst.filter((id) => records.find((r) => r.payment_id === id)!.method === 'crypto');
    expect(ids((await list(`?${window}&method=crypto`)).body)).toEqual(crypto);
    expect(
      ids(
        (await list(`?created_gte=${encodeURIComponent(at(1))}&created_lt=${encodeURIComponent(at(3))}`))
          .body,
      ),
    ).toEqual(
      newestFirst.filter((id) => {
        const created = records.find((r) => r.payment_id === id)!.created_at;
        return created >= at(1) && created < at(3);
      }),
    );
    // Page by page, two at a time, with a cursor the status filter leaves out.
    const pages: string[][] = [];
    let cursor: string | null = null;
    for (;;) {
      const page = await list(`?${window}&limit=2${cursor ? `&starting_after=${cursor}` : ''}`);
      pages.push(ids(page.body));
      if (!page.body.has_more) break;
      cursor = ids(page.body).at(-1)!;
    }
    expect(pages.flat()).toEqual(newestFirst);
    expect(pages.map((page) => page.length)).toEqual([2, 2, 2]);
    const afterExpired = newestFirst.slice(newestFirst.indexOf(records[2]!.payment_id) + 1);
    expect(ids((await list(`?${window}&status=paid&starting_after=${records[2]!.payment_id}`)).body)).toEqual(
      afterExpired.filter((id) => paid.includes(id)),
    );
    // Internal fields stay inside.
    expect((await list(`?${window}`)).body.data[0]).not.toHaveProperty('version');
    expect(askedToList()).toBe(before);

    // A cursor the copies do not hold (another business's payment, or one not seen yet) goes to the payment service.
    const other = feed.find((entry) => entry.record.business_id !== h.merchant.business_id)!.record
      .payment_id;
    await list(`?starting_after=${other}`);
    expect(askedToList()).toBe(before + 1);
  });

  test('a write committed after a later one is still copied: the next read starts at the settling point, not the last write', async () => {
    const window = `created_gte=${encodeURIComponent('2026-11-02T00:00:00.000Z')}&created_lt=${encodeURIComponent('2026-11-03T00:00:00.000Z')}`;
    const first = mine({ created_at: '2026-11-02T10:00:00.000Z' });
    write(first);
    await listedFromCopies(`?${window}`, [first.payment_id]);
    // Transaction `slow` takes its id, then `quick` writes and commits; the feed holds back at `slow` meanwhile.
    const slow = (xid += 1n);
    settledBelow = slow;
    const quick = mine({ created_at: '2026-11-02T11:00:00.000Z' });
    write(quick);
    await listedFromCopies(`?${window}`, [quick.payment_id, first.payment_id]);
    // `slow` commits: a payment with a lower transaction id than the last one read.
    const late = mine({ created_at: '2026-11-02T12:00:00.000Z', status: 'paid' });
    write(late, slow);
    settledBelow = null;
    await listedFromCopies(`?${window}`, [late.payment_id, quick.payment_id, first.payment_id]);
  });

  test('a change reaches the list, and copies lost are rebuilt from the start of the feed', async () => {
    const window = `created_gte=${encodeURIComponent('2026-11-04T00:00:00.000Z')}&created_lt=${encodeURIComponent('2026-11-05T00:00:00.000Z')}`;
    const made = [0, 1, 2].map((hour) =>
      mine({ created_at: `2026-11-04T1${hour}:00:00.000Z`, status: 'pending' }),
    );
    for (const record of made) write(record);
    const expected = made.map((record) => record.payment_id).reverse();
    await listedFromCopies(`?${window}`, expected);
    write({ ...made[0]!, status: 'paid', version: 2 });
    await waitFor(
      async () =>
        (await list(`?${window}&status=paid`)).body.data[0]?.payment_id === made[0]!.payment_id
          ? true
          : undefined,
      { timeoutMs: 15_000, what: 'the change in the list' },
    );

    const query = (sql: string) => h.gateway.runtime.dataSource.query(sql);
    await query('DELETE FROM payment_copies');
    await listedFromCopies(`?${window}`, expected);
    expect(ids((await list(`?${window}&status=paid`)).body)).toEqual([made[0]!.payment_id]);
    await query('DELETE FROM payment_copies');
    await query('DELETE FROM payment_copy_feed');
    await listedFromCopies(`?${window}`, expected);
    // The position's row gone, then the copies: the row is made again at the feed's start, in a new generation.
    await query('DELETE FROM payment_copy_feed');
    await query('TRUNCATE payment_copies');
    await listedFromCopies(`?${window}`, expected);
  });

  test('a backlog longer than a page, all of one transaction, is read to its end and listed whole', async () => {
    const day = '2026-11-08';
    const backlog = Array.from({ length: 1200 }, (_, i) =>
      mine({ created_at: new Date(Date.parse(`${day}T00:00:00.000Z`) + i * 1000).toISOString() }),
    );
    // Written by one transaction, as the migration stamps every payment it finds (0).
    for (const record of backlog) write(record, 0n);
    await h.gateway.runtime.dataSource.query('DELETE FROM payment_copy_feed');
    const window = `created_gte=${day}T00:00:00.000Z&created_lt=${day}T23:59:59.999Z`;
    const newest = backlog.map((record) => record.payment_id).reverse();
    await listedFromCopies(`?${window}&limit=100`, newest.slice(0, 100));
    const before = askedToList();
    const listed: string[] = [];
    let cursor: string | null = null;
    for (;;) {
      const page = await list(`?${window}&limit=100${cursor ? `&starting_after=${cursor}` : ''}`);
      listed.push(...ids(page.body));
      if (!page.body.has_more) break;
      cursor = listed.at(-1)!;
    }
    expect(listed).toEqual(newest);
    expect(askedToList()).toBe(before);
  });

  test('a feed that went back (its database restored) makes the copies forget what it no longer has', async () => {
    const window = `created_gte=${encodeURIComponent('2026-11-09T00:00:00.000Z')}&created_lt=${encodeURIComponent('2026-11-10T00:00:00.000Z')}`;
    const record = mine({ created_at: '2026-11-09T10:00:00.000Z', status: 'pending' });
    write({ ...record, status: 'paid', version: 2 });
    await listedFromCopies(`?${window}&status=paid`, [record.payment_id]);
    // Restored to before the payment was paid: lower transaction ids, the payment at its first version.
    feed = feed
      .filter((entry) => entry.record.payment_id !== record.payment_id)
      .map((entry) => ({ ...entry, xid: 1n }));
    xid = 2n;
    write(record);
    await listedFromCopies(`?${window}&status=pending`, [record.payment_id]);
    expect(ids((await list(`?${window}&status=paid`)).body)).toEqual([]);
  });

  test("a list by status goes to the payment service while a change of any of the business's payments is in flight", async () => {
    const window = `created_gte=${encodeURIComponent('2026-11-11T00:00:00.000Z')}&created_lt=${encodeURIComponent('2026-11-12T00:00:00.000Z')}`;
    const [first, second] = [10, 11].map((hour) =>
      mine({ created_at: `2026-11-11T${hour}:00:00.000Z`, status: 'pending' }),
    );
    write(first!);
    write(second!);
    await listedFromCopies(`?${window}&status=pending`, [second!.payment_id, first!.payment_id]);
    // A cancel of the first is in flight (its copy marked before the command is sent).
    await h.gateway.runtime.dataSource.query(
      `UPDATE payment_copies SET stale_below = version + 1, stale_until = now() + interval '1 minute' WHERE payment_id = $1`,
      [first!.payment_id],
    );
    const before = askedToList();
    await list(`?${window}&status=pending&limit=1`);
    expect(askedToList()).toBe(before + 1);
    // Unfiltered, the page without the marked copy is still the copies' to answer.
    expect(ids((await list(`?${window}&limit=1`)).body)).toEqual([second!.payment_id]);
    expect(askedToList()).toBe(before + 1);
  });

  test('while the feed cannot be read, lists go to the payment service once its last read is older than the maximum age', async () => {
    const record = mine({ created_at: '2026-11-06T10:00:00.000Z' });
    write(record);
    const window = `created_gte=${encodeURIComponent('2026-11-06T00:00:00.000Z')}&created_lt=${encodeURIComponent('2026-11-07T00:00:00.000Z')}`;
    await listedFromCopies(`?${window}`, [record.payment_id]);
    feedDown = true;
    const before = askedToList();
    await waitFor(async () => ((await list(`?${window}`)).body.data.length === 0 ? true : undefined), {
      timeoutMs: 15_000,
      what: 'the list from the payment service',
    });
    expect(askedToList()).toBeGreaterThan(before);
    feedDown = false;
    await listedFromCopies(`?${window}`, [record.payment_id]);
  });

  test('a single copy older than the maximum age is answered while the feed was read to its end since', async () => {
    const record = mine({ status: 'paid' });
    write(record);
    h.fakes.on(getPayment, async () => {
      throw new CommandError('NOT_FOUND', 'Pagamento não encontrado.');
    });
    await waitFor(
      async () => {
        const rows: unknown[] = await h.gateway.runtime.dataSource.query(
          `SELECT 1 FROM payment_copies WHERE payment_id = $1 AND stored_at < now() - make_interval(secs => $2)`,
          [record.payment_id, (MAX_AGE_MS + 200) / 1000],
        );
        return rows.length === 1 ? true : undefined;
      },
      { timeoutMs: 20_000, what: 'the copy older than the maximum age' },
    );
    const before = h.fakes.receivedOf(getPayment).length;
    const read = await h.http.get(`/v1/payments/${record.payment_id}`).set('x-api-key', h.merchant.api_key);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ payment_id: record.payment_id, status: 'paid' });
    expect(h.fakes.receivedOf(getPayment).length).toBe(before);
  });
});
