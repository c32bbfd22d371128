import { stackWithMerchantForTheseTests, waitFor } from '@gateway/testkit';

/** How long an effect that follows an event may take on a loaded machine (broker retries included). */
const EVENT_EFFECT_MS = 60_000;
jest.setTimeout(4 * EVENT_EFFECT_MS);

interface BalanceAnswer {
  available_brl: number;
  pending_brl: number;
  reserved_brl: number;
  blocked_brl: number;
  updated_at: string;
}

const cents = (brl: number): number => Math.round(brl * 100);
const total = (balance: BalanceAnswer): number =>
  cents(balance.available_brl) +
  cents(balance.pending_brl) +
  cents(balance.reserved_brl) +
  cents(balance.blocked_brl);

/** `YYYY-MM` of a date, and of the months around it (UTC). */
const monthOf = (date: Date, shift = 0): string => {
  const shifted = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + shift, 1));
  return shifted.toISOString().slice(0, 7);
};

/**
 * The books through the public API of the whole stack: what a paid PIX payment, a paid crypto payment and a refund
 * do to the business's balance, its balance transactions and the month's statement, as a merchant reads them.
 */
describe('balance, balance transactions and statements end to end', () => {
  const fee = { percent_bps: 100, fixed_centavos: 0 };
  const live = stackWithMerchantForTheseTests({
    name: 'Livraria Aurora',
    feeRules: { pix: fee, crypto: fee },
    webhookEvents: ['payment.confirmed'],
  });
  let otherKey: string;

  const call = (key: string, method: string, path: string, body?: unknown) =>
    live.client.api(key, method, path, body);
  const api = (method: string, path: string, body?: unknown) => call(live.apiKey, method, path, body);
  const balance = async (key = live.apiKey): Promise<BalanceAnswer> =>
    (await call(key, 'GET', '/v1/balance')).body as BalanceAnswer;
  const statement = async (month: string, key = live.apiKey) => {
    const response = await fetch(`${live.stack.gatewayUrl}/v1/statements/${month}`, {
      headers: { 'x-api-key': key },
    });
    return {
      status: response.status,
      type: response.headers.get('content-type'),
      text: await response.text(),
    };
  };

  const paid = async (body: Record<string, unknown>): Promise<string> => {
    const { payment_id: paymentId } = await live.client.createPayment(live.apiKey, body);
    await live.client.payInSandbox(live.apiKey, paymentId);
    await live.client.paymentIn(live.apiKey, paymentId, 'paid');
    return paymentId as string;
  };
  /** Waits until the business's balance transactions sum to `centavos` and its balance shows all of it available. */
  const booksShow = (centavos: number) =>
    waitFor(
      async () => {
        const now = await balance();
        return cents(now.available_brl) === centavos && total(now) === centavos && now;
      },
      {
        timeoutMs: EVENT_EFFECT_MS,
        intervalMs: 200,
        what: `the balance at ${centavos} centavos, all available`,
      },
    );

  beforeAll(async () => {
    ({ apiKey: otherKey } = await live.client.createBusiness('Outra Loja'));
  });

  test('a new business has a balance of zero and an empty statement', async () => {
    const fresh = await balance(otherKey);
    expect(fresh).toEqual({
      available_brl: 0,
      pending_brl: 0,
      reserved_brl: 0,
      blocked_brl: 0,
      updated_at: expect.any(String),
    });
    expect((await call(otherKey, 'GET', '/v1/balance_transactions')).body).toEqual({
      data: [],
      has_more: false,
    });
  });

  test('payments credit the net amount, a refund debits it, and the statement prints both with opening and closing balances', async () => {
    const started = new Date();
    const pixId = await paid({ payment_method: 'pix', amount: 10000 });
    await booksShow(9900);
    const cryptoId = await paid({
      payment_method: 'crypto',
      amount: 2500,
      crypto: { currency: 'usdc', network: 'solana' },
    });
    await booksShow(9900 + 2475);

    const listed = (await api('GET', '/v1/balance_transactions?limit=10')).body;
    expect(listed.has_more).toBe(false);
    expect(listed.data).toEqual([
      expect.objectContaining({
        id: expect.stringMatching(/^btx_/),
        type: 'payment',
        source_id: cryptoId,
        amount_brl: 25,
        fee_brl: 0.25,
        net_brl: 24.75,
        status: 'available',
      }),
      expect.objectContaining({
        type: 'payment',
        source_id: pixId,
        amount_brl: 100,
        fee_brl: 1,
        net_brl: 99,
        status: 'available',
      }),
    ]);

    const refund = await api('POST', `/v1/payments/${pixId}/refunds`, { amount: 1000 });
    expect(refund.status).toBe(201);
    await booksShow(9900 + 2475 - 1000);
    const refunds = (await api('GET', '/v1/balance_transactions?type=refund')).body;
    expect(refunds.data).toEqual([
      expect.objectContaining({
        type: 'refund',
        source_id: refund.body.refund_id,
        amount_brl: -10,
        fee_brl: 0,
        net_brl: -10,
      }),
    ]);

    // The sum of every balance transaction's net is the balance.
    const all = (await api('GET', '/v1/balance_transactions?limit=100')).body.data as Array<{
      net_brl: number;
    }>;
    expect(all.reduce((sum, item) => sum + cents(item.net_brl), 0)).toBe(total(await balance()));

    // Paging: one at a time, newest first, the cursor is the last id.
    const first = (await api('GET', '/v1/balance_transactions?limit=1')).body;
    expect(first).toMatchObject({ data: [{ type: 'refund' }], has_more: true });
    const second = (await api('GET', `/v1/balance_transactions?limit=1&starting_after=${first.data[0].id}`))
      .body;
    expect(second).toMatchObject({ data: [{ source_id: cryptoId }], has_more: true });

    // The month's statement: header, the three rows oldest first, then opening and closing balances.
    // The months' statements: header, the three rows oldest first, then opening and closing balances. A run that
    // crosses a month's end (UTC) finds its rows in two files, the second opening where the first closed.
    const months = [...new Set([monthOf(started), monthOf(new Date())])];
    const files = await Promise.all(months.map((month) => statement(month)));
    const rows: string[] = [];
    for (const csv of files) {
      expect(csv.status).toBe(200);
      expect(csv.type).toBe('text/csv; charset=utf-8');
      const lines = csv.text.trimEnd().split(/\r?\n/);
      expect(lines[0]).toBe(
        'id,created_at,type,source_id,amount_brl,fee_brl,net_brl,available_on,description',
      );
      rows.push(...lines.slice(1).filter((line) => line.startsWith('btx_')));
    }
    expect(rows.map((line) => line.split(',').slice(2, 7))).toEqual([
      ['payment', pixId, '100.00', '1.00', '99.00'],
      ['payment', cryptoId, '25.00', '0.25', '24.75'],
      ['refund', refund.body.refund_id, '-10.00', '0.00', '-10.00'],
    ]);
    expect(files[0]!.text).toMatch(/opening_balance_brl,+0\.00/);
    expect(files.at(-1)!.text).toMatch(/closing_balance_brl,+113\.75/);

    // The month after opens where the last closed, with no rows; the one before holds nothing.
    const next = await statement(monthOf(new Date(), 1));
    expect(next.text).toMatch(/opening_balance_brl,+113\.75/);
    expect(next.text).toMatch(/closing_balance_brl,+113\.75/);
    expect(next.text).not.toContain('btx_');
    const before = await statement(monthOf(started, -1));
    expect(before.text).toMatch(/closing_balance_brl,+0\.00/);

    // Another business sees none of it.
    expect(total(await balance(otherKey))).toBe(0);
    expect((await statement(months[0]!, otherKey)).text).not.toContain('btx_');
  });

  test('a malformed month is refused with the error shape', async () => {
    for (const month of ['2026-13', '26-01', 'abc', '2026-1', '%00']) {
      const answer = await statement(month);
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
      expect(JSON.parse(answer.text)).toEqual({
        error: { code: expect.any(String), message: expect.any(String) },
      });
    }
  });
});
