import { useLedgerStack } from './support/stack-books';
import { getBalance, listBalanceTransactions, type Balance } from '@gateway/contracts';
import { waitFor } from '@gateway/testkit';

/**
 * The whole stack as `npm start` runs it: payments paid through the public API and the sandbox's payer, a refund at
 * the PSP, and the ledger's books of the business, read with the ledger's own commands and tables.
 */
describe('the ledger in the stack', () => {
  const ledger = useLedgerStack({}, 'ledger-e2e');
  let apiKey: string;
  let businessId: string;

  beforeAll(async () => {
    ({ apiKey, businessId } = await ledger.client.createBusiness('Padaria São João', {
      pix: { percent_bps: 100, fixed_centavos: 0 },
      crypto: { percent_bps: 150, fixed_centavos: 10 },
    }));
  });

  const balance = async (): Promise<Balance> => {
    const reply = await ledger.broker.request(getBalance, { business_id: businessId }, { timeoutMs: 5000 });
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    return reply.result;
  };
  const balanceBecomes = (expected: Partial<Balance>, what: string) =>
    waitFor(
      async () => {
        const read = await balance();
        return Object.entries(expected).every(([key, value]) => read[key as keyof Balance] === value)
          ? read
          : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, what },
    );
  const paid = async (body: Record<string, unknown>): Promise<string> => {
    const paymentId = (await ledger.client.createPayment(apiKey, body)).payment_id as string;
    await ledger.client.payInSandbox(apiKey, paymentId);
    await ledger.client.paymentIn(apiKey, paymentId, 'paid');
    return paymentId;
  };

  test('a paid PIX payment, a paid USDC payment and a PIX refund: posted once each, the balance their sum', async () => {
    const pix = await paid({ payment_method: 'pix', amount: 10_000 });
    // Sandbox: no settlement delay, so the net (10 000 - 1 %) becomes available.
    await balanceBecomes({ available_centavos: 9_900, pending_centavos: 0 }, 'the PIX payment settled');

    const crypto = await paid({
      payment_method: 'crypto',
      amount: 2_000,
      crypto: { currency: 'usdc', network: 'solana' },
    });
    await balanceBecomes({ available_centavos: 9_900 + 1_960 }, 'the USDC payment settled'); // 2 000 - 1.5 % - 10

    const refund = await ledger.client.api(apiKey, 'POST', `/v1/payments/${pix}/refunds`, { amount: 2_500 });
    expect(refund.status).toBe(201);
    // Reserved at once (before anything was sent to the PSP), then spent when the devolução succeeded.
    await balanceBecomes(
      { available_centavos: 9_900 + 1_960 - 2_500, reserved_centavos: 0 },
      'the refund reserved and posted',
    );

    const holdings = await ledger.books.query(
      `SELECT account, sum(amount_centavos)::int AS total FROM entries WHERE business_id IS NULL
       GROUP BY account ORDER BY account`,
    );
    expect(holdings).toEqual([
      { account: 'cash_psp', total: 10_000 - 2_500 },
      { account: 'fee_revenue', total: -(100 + 40) },
      { account: 'tokens:usdc', total: 2_000 },
    ]);
    const listed = await ledger.broker.request(
      listBalanceTransactions,
      { business_id: businessId, oldest_first: true },
      { timeoutMs: 5000 },
    );
    if (!listed.ok) throw new Error(JSON.stringify(listed.error));
    expect(listed.result.data.map((bt) => [bt.type, bt.source_id, bt.net_centavos, bt.status])).toEqual([
      ['payment', pix, 9_900, 'available'],
      ['payment', crypto, 1_960, 'available'],
      ['refund', refund.body.refund_id, -2_500, 'available'],
    ]);
    // Each journal counted once: two payments, their two settlements, one refund and its reservation.
    const metrics = await (await fetch(`${ledger.stack.metricsUrls.ledger}/metrics`)).text();
    const posted = (kind: string) =>
      Number(
        new RegExp(`^ledger_journals_posted_total\\{[^}]*kind="${kind}"[^}]*\\} (\\d+)`, 'm').exec(
          metrics,
        )?.[1],
      );
    expect([posted('payment'), posted('settlement'), posted('refund'), posted('reservation')]).toEqual([
      2, 2, 1, 1,
    ]);
    const final = await balance();
    expect(listed.result.data.reduce((sum, bt) => sum + bt.net_centavos, 0)).toBe(
      final.available_centavos + final.pending_centavos + final.reserved_centavos + final.blocked_centavos,
    );
  }, 120_000);
});
