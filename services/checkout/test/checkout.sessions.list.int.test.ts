import { randomBytes } from 'node:crypto';
import {
  EMBEDDED_SESSIONS_MAX,
  getCheckout,
  listCheckoutSessions,
  type ListCheckoutSessions,
} from '@gateway/contracts';
import { checkoutServiceForTheseTests } from './support/checkout-service';

describe("a checkout's sessions are read a bounded page at a time", () => {
  const bed = checkoutServiceForTheseTests('checkout-sessions-list');

  /**
   * `count` sessions of the checkout, one second apart except the first `sameInstant`, which share one creation time
   * (their order is then the id's: lower-case hex ids sort the same in every collation); returns their ids newest
   * first, as the contract orders them.
   */
  const sessionsOf = async (checkoutId: string, count: number, sameInstant = 1): Promise<string[]> => {
    const rows = Array.from({ length: count }, (_, n) => ({
      id: `sess_${randomBytes(12).toString('hex')}`,
      createdAt: new Date(Date.UTC(2030, 0, 1, 0, 0, Math.max(0, n - sameInstant + 1))).toISOString(),
    }));
    await bed.service.dataSource.query(
      `INSERT INTO sessions (id, checkout_id, payment_id, status, created_at)
       SELECT id, $1, 'pay_' || md5(id), 'initiated', created_at
         FROM unnest($2::text[], $3::timestamptz[]) AS s(id, created_at)`,
      [checkoutId, rows.map((row) => row.id), rows.map((row) => row.createdAt)],
    );
    return [...rows]
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || (b.id < a.id ? -1 : b.id > a.id ? 1 : 0))
      .map((row) => row.id);
  };

  const list = (query: ListCheckoutSessions) => bed.request(listCheckoutSessions, query);

  test('a read embeds only the newest sessions and says there are more', async () => {
    const checkout = await bed.newCheckout();
    const newestFirst = await sessionsOf(checkout.checkout_id, EMBEDDED_SESSIONS_MAX + 3, 5);
    const reply = await bed.request(getCheckout, {
      business_id: checkout.business_id,
      checkout_id: checkout.checkout_id,
    });
    if (!reply.ok) throw new Error(reply.error.message);
    expect(reply.result.sessions!.map((s) => s.session_id)).toEqual(
      newestFirst.slice(0, EMBEDDED_SESSIONS_MAX),
    );
    expect(reply.result.sessions_has_more).toBe(true);
  });

  test('a read of a checkout with few sessions embeds them all and has no more', async () => {
    const checkout = await bed.newCheckout();
    const newestFirst = await sessionsOf(checkout.checkout_id, 3);
    const reply = await bed.request(getCheckout, {
      business_id: checkout.business_id,
      checkout_id: checkout.checkout_id,
    });
    expect(reply.ok && reply.result.sessions!.map((s) => s.session_id)).toEqual(newestFirst);
    expect(reply.ok && reply.result.sessions_has_more).toBe(false);
  });

  test('pages hold at most `limit` sessions (10 by default) and starting_after walks all of them once, newest first', async () => {
    const checkout = await bed.newCheckout();
    const newestFirst = await sessionsOf(checkout.checkout_id, 23, 7);
    const owner = { business_id: checkout.business_id, checkout_id: checkout.checkout_id };

    const first = await list(owner);
    if (!first.ok) throw new Error(first.error.message);
    expect(first.result.data.map((s) => s.session_id)).toEqual(newestFirst.slice(0, 10));
    expect(first.result.has_more).toBe(true);
    expect(first.result.data[0]).toEqual({
      session_id: newestFirst[0],
      checkout_id: checkout.checkout_id,
      payment_id: expect.stringMatching(/^pay_/),
      status: 'initiated',
      created_at: expect.any(String),
    });

    const walked: string[] = [];
    let after: string | null = null;
    for (let pages = 0; pages < 30; pages += 1) {
      const reply = await list({ ...owner, limit: 6, starting_after: after });
      if (!reply.ok) throw new Error(reply.error.message);
      expect(reply.result.data.length).toBeLessThanOrEqual(6);
      walked.push(...reply.result.data.map((s) => s.session_id));
      if (!reply.result.has_more) break;
      after = reply.result.data.at(-1)!.session_id;
    }
    expect(walked).toEqual(newestFirst);

    const whole = await list({ ...owner, limit: 100 });
    expect(whole.ok && whole.result).toEqual({ data: expect.any(Array), has_more: false });
    expect(whole.ok && whole.result.data).toHaveLength(23);
  });

  test("another business's checkout is NOT_FOUND; a starting_after of another checkout is INVALID_FIELDS", async () => {
    const checkout = await bed.newCheckout();
    const other = await bed.newCheckout();
    await sessionsOf(checkout.checkout_id, 2);
    const [foreignSession] = await sessionsOf(other.checkout_id, 1);
    expect(await list({ business_id: other.business_id, checkout_id: checkout.checkout_id })).toEqual({
      ok: false,
      error: { code: 'NOT_FOUND', message: expect.any(String) },
    });
    expect(
      await list({
        business_id: checkout.business_id,
        checkout_id: checkout.checkout_id,
        starting_after: foreignSession,
      }),
    ).toEqual({
      ok: false,
      error: { code: 'INVALID_FIELDS', message: expect.stringContaining('starting_after') },
    });
  });

  test('a limit outside 1-100 or a starting_after that is not a session id breaks the contract', async () => {
    const checkout = await bed.newCheckout();
    const owner = { business_id: checkout.business_id, checkout_id: checkout.checkout_id };
    for (const limit of [0, 101, 1.5]) await expect(list({ ...owner, limit })).rejects.toThrow(/limit/);
    await expect(list({ ...owner, starting_after: 'pay_abcdefghijklmnopqrstuvwx' })).rejects.toThrow(
      /starting_after/,
    );
  });
});
