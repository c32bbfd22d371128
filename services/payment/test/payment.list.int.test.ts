import { listPayments, pixChargePaid, type ListPayments, type PaymentRecord } from '@gateway/contracts';
import { listPaymentsOf } from '../src/persistence';
import { paymentServiceForTheseTests } from './support/harness';
import { aPixChargePaid } from './support/rail-events';

describe('payment.list.v1', () => {
  const h = paymentServiceForTheseTests('payment-list');

  const list = async (query: ListPayments) => {
    const reply = await h.request(listPayments, query);
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    return reply.result;
  };
  const refusal = async (query: ListPayments) => {
    const reply = await h.request(listPayments, query);
    return reply.ok ? undefined : reply.error.code;
  };
  /** Every page of the list, following `starting_after` until `has_more` is false. */
  const everyPage = async (query: ListPayments, between: () => Promise<unknown> = async () => undefined) => {
    const pages: PaymentRecord[][] = [];
    let startingAfter: string | null = null;
    for (;;) {
      const page = await list({ ...query, starting_after: startingAfter });
      pages.push(page.data);
      if (!page.has_more) return pages;
      startingAfter = page.data.at(-1)!.payment_id;
      await between();
    }
  };
  const createMany = async (businessId: string, count: number, method: 'pix' | 'crypto' = 'pix') => {
    const ids: string[] = [];
    for (let i = 0; i < count; i += 1) {
      const view = await h.createPayment(businessId, {
        method,
        token: method === 'crypto' ? 'usdc' : null,
        amount_centavos: 1000 + i,
      });
      ids.push(view.payment.payment_id);
    }
    return ids;
  };

  test("lists only the business's own payments, newest first, a page at a time until has_more is false", async () => {
    const businessId = await h.newBusiness();
    const other = await h.newBusiness();
    const mine = await createMany(businessId, 5);
    await createMany(other, 2);

    const pages = await everyPage({ business_id: businessId, limit: 2 });

    expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
    expect(pages.flat().map((p) => p.payment_id)).toEqual([...mine].reverse());
    expect(pages.flat().every((p) => p.business_id === businessId)).toBe(true);
  });

  test('paging is stable while payments are created: none repeated, none skipped', async () => {
    for (let run = 0; run < 3; run += 1) {
      const businessId = await h.newBusiness();
      const before = await createMany(businessId, 6);
      // A new payment lands between every two page requests: it is newer than the cursor, so never on a later page.
      const pages = await everyPage({ business_id: businessId, limit: 2 }, () => createMany(businessId, 1));
      expect(pages.flat().map((p) => p.payment_id)).toEqual([...before].reverse());
    }
  });

  test('filters by status, method and creation time', async () => {
    const businessId = await h.newBusiness();
    const [first, second, third] = await createMany(businessId, 3);
    const [crypto] = await createMany(businessId, 1, 'crypto');
    const listedFirst = await list({ business_id: businessId, limit: 100 });
    const toPay = listedFirst.data.find((p) => p.payment_id === second)!;
    await h.client.publish(pixChargePaid, aPixChargePaid(toPay));
    await h.waitForPaymentStatus(businessId, second!, 'paid');

    const ids = async (query: Omit<ListPayments, 'business_id'>) =>
      (await list({ business_id: businessId, limit: 100, ...query })).data.map((p) => p.payment_id);
    expect(await ids({ status: 'paid' })).toEqual([second]);
    expect(await ids({ status: 'processing' })).toEqual([third, first]);
    expect(await ids({ method: 'crypto' })).toEqual([crypto]);
    expect(await ids({ method: 'pix', status: 'processing' })).toEqual([third, first]);
    const all = (await list({ business_id: businessId, limit: 100 })).data;
    const createdOf = (id: string | undefined) => all.find((p) => p.payment_id === id)!.created_at;
    expect(await ids({ created_gte: createdOf(second), created_lt: createdOf(crypto) })).toEqual([
      third,
      second,
    ]);
    expect(await ids({ created_gte: new Date(Date.now() + 60_000).toISOString() })).toEqual([]);
  });

  test("a starting_after of another business's payment is INVALID_FIELDS", async () => {
    const businessId = await h.newBusiness();
    const other = await h.newBusiness();
    const [mine] = await createMany(businessId, 1);
    const [theirs] = await createMany(other, 1);

    expect(await refusal({ business_id: businessId, starting_after: theirs! })).toBe('INVALID_FIELDS');
    expect((await list({ business_id: businessId, starting_after: mine! })).data).toEqual([]);
  });

  test('a cursor the filter leaves out since the last page (paid meanwhile) still marks its position', async () => {
    const businessId = await h.newBusiness();
    const [older, newer] = await createMany(businessId, 2);
    const firstPage = await list({ business_id: businessId, status: 'processing', limit: 1 });
    expect(firstPage.data.map((p) => p.payment_id)).toEqual([newer]);
    await h.client.publish(pixChargePaid, aPixChargePaid(firstPage.data[0]!));
    await h.waitForPaymentStatus(businessId, newer!, 'paid');

    const next = await list({
      business_id: businessId,
      status: 'processing',
      limit: 1,
      starting_after: newer!,
    });
    expect({ ids: next.data.map((p) => p.payment_id), more: next.has_more }).toEqual({
      ids: [older],
      more: false,
    });
  });

  test('a page of a business with a million payments reads the page index, never the whole table', async () => {
    const businessId = await h.newBusiness();
    const { dataSource } = h.service;
    await dataSource.query(
      `INSERT INTO payments (id, business_id, business_name, method, status, amount_centavos, fee_centavos, created_at)
       SELECT 'pay_' || lpad(g::text, 24, '0'), $1, 'Loja', CASE WHEN g % 2 = 0 THEN 'pix' ELSE 'crypto' END,
              CASE WHEN g % 100 = 0 THEN 'paid' ELSE 'expired' END, 1000, 25,
              now() - make_interval(secs => g)
         FROM generate_series(1, 1000000) AS g`,
      [businessId],
    );
    await dataSource.query('ANALYZE payments');
    const cursor = 'pay_' + '500000'.padStart(24, '0');
    const queries: Array<{ sql: string; parameters: unknown[] }> = [];
    const logQuery = jest.spyOn(dataSource.logger, 'logQuery').mockImplementation((sql, parameters) => {
      // Only the page reads: the service's own pollers (the outbox relay's claim) run meanwhile.
      if (/ORDER BY/.test(sql) && /"payments" "listed"/.test(sql))
        queries.push({ sql, parameters: parameters ?? [] });
    });
    try {
      for (const filters of [{}, { status: 'paid' as const }, { method: 'pix' as const }]) {
        const page = await listPaymentsOf(dataSource.manager, businessId, filters, {
          limit: 100,
          startingAfter: cursor,
        });
        expect(page?.rows).toHaveLength(100);
      }
    } finally {
      logQuery.mockRestore();
    }
    expect(queries).toHaveLength(3);
    for (const { sql, parameters } of queries) {
      const [{ 'QUERY PLAN': plan }] = (await dataSource.query(
        `EXPLAIN (FORMAT JSON) ${sql}`,
        parameters,
      )) as [{ 'QUERY PLAN': unknown }];
      const text = JSON.stringify(plan);
      expect(text).not.toContain('"Seq Scan"');
      expect(text).toMatch(/"Index Name":"payments_page(_by_status)?"/);
    }
  }, 120_000);
});
