import { waitFor } from '@gateway/testkit';
import { pspSandbox, useLedgerStack } from './support/stack-books';

interface Reconciliation {
  status: string;
  difference_count: number;
  differences: unknown[];
  pending: unknown[];
  psp_balance_brl: number | null;
  books_cash_psp_brl: number | null;
  tokens: Array<{ token: string; wallet_base_units: string; books_base_units: string }>;
}

/**
 * The whole stack as `npm start` runs it: money held in suspense (a late PIX, the excess of an overpaid USDC payment)
 * goes back to whoever paid it when the operator says so, through the rail it came by — a devolução at the PSP, a
 * token transfer on the local chain — and leaves the books once the rail confirms.
 */
describe("the operator's return of held money to its payer, through the stack", () => {
  const ledger = useLedgerStack({ RECONCILIATION_GRACE_SECONDS: '1', RECONCILIATION_INTERVAL_SECONDS: '0' });
  let apiKey: string;

  beforeAll(async () => {
    // A second of grace: what the rails moved more than a second ago and the books do not hold is a difference.
    ({ apiKey } = await ledger.client.createBusiness('Quitanda Devolve', {
      pix: { percent_bps: 100, fixed_centavos: 0 },
      crypto: { percent_bps: 0, fixed_centavos: 0 },
    }));
  });

  const api = (method: string, path: string, body?: unknown) => ledger.client.api(apiKey, method, path, body);

  const heldFunds = (paymentId: string) =>
    waitFor(
      async () => {
        const [funds] = (await api('GET', `/v1/payments/${paymentId}/received-funds`)).body.data ?? [];
        return funds?.status === 'held' ? funds : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250, what: `the funds kept aside for ${paymentId}` },
    );

  /** The operator's view of the funds once they are no longer returning (returned, or held again). */
  const settledReturn = (fundsId: string, status: 'returned' | 'held') =>
    waitFor(
      async () => {
        const page = (await ledger.client.admin(
          'GET',
          `/admin/v1/received-funds?status=${status}&limit=100`,
        )) as {
          data: Array<Record<string, unknown>>;
        };
        return page.data.find((funds) => funds.funds_id === fundsId && funds.status === status);
      },
      { timeoutMs: 60_000, intervalMs: 250, what: `funds ${fundsId} ${status}` },
    );

  /** What the books hold in suspense for the funds' money (a credit account: minus its entries), in centavos. */
  const suspenseOf = async (fundsId: string): Promise<{ status: string; held: number }> => {
    const [row] = await ledger.books.query(
      `SELECT f.status, COALESCE(-(SELECT sum(e.amount_centavos) FROM entries e JOIN journals j ON j.id = e.journal_id
                                    WHERE e.account = 'suspense'
                                      AND j.cause_key IN ('funds:received:' || f.money_key, 'funds:out:' || f.money_key)),
                                  0)::int AS held
         FROM suspense_funds f WHERE f.funds_id = $1`,
      [fundsId],
    );
    return row;
  };

  const fundsBooked = (fundsId: string) =>
    waitFor(async () => ((await suspenseOf(fundsId))?.held ?? 0) > 0, {
      timeoutMs: 30_000,
      intervalMs: 200,
      what: `funds ${fundsId} booked in suspense`,
    });

  /** The journal that took the funds out of suspense: its rail reference and entries by account. */
  const outJournal = async (fundsId: string) => {
    const rows: Array<{
      kind: string;
      rail_reference: string | null;
      account: string;
      amount: number;
      quantity: string | null;
    }> = await ledger.books.query(
      `SELECT j.kind, j.rail_reference, e.account, e.amount_centavos::int AS amount,
                e.quantity_base_units::text AS quantity
           FROM suspense_funds f JOIN journals j ON j.cause_key = 'funds:out:' || f.money_key
           JOIN entries e ON e.journal_id = j.id
          WHERE f.funds_id = $1 ORDER BY e.account`,
      [fundsId],
    );
    return rows;
  };

  const reconcileWithNothingInFlight = () =>
    waitFor(
      async () => {
        const run = (await ledger.client.admin(
          'POST',
          '/admin/v1/reconciliations',
          {},
        )) as unknown as Reconciliation;
        return run.pending.length === 0 ? run : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 500, what: 'a reconciliation with nothing in flight' },
    );

  /** A PIX paid at the PSP after its payment expired (the PSP's own window still open): late money, held. */
  const latePix = async (amount: number) => {
    const paymentId = (await ledger.client.createPayment(apiKey, { payment_method: 'pix', amount }))
      .payment_id as string;
    expect(
      (await api('POST', `/v1/sandbox/payments/${paymentId}/simulate`, { outcome: 'expired' })).status,
    ).toBe(202);
    await ledger.client.paymentIn(apiKey, paymentId, 'expired');
    const [{ external_id: txid }] = await ledger.books.query(
      `SELECT external_id FROM payment.payments WHERE id = $1`,
      [paymentId],
    );
    const paid = await (await pspSandbox(ledger.stack.pspUrl)).call('POST', `/v2/cob/pagar/${txid}`, {});
    expect(paid.status).toBe(200);
    const funds = await heldFunds(paymentId);
    expect(funds).toMatchObject({ kind: 'late', rail: 'pix', amount_brl: amount / 100 });
    await fundsBooked(funds.funds_id);
    return { paymentId, funds };
  };

  /** The Pix as the PSP keeps it (`GET /pix/{e2eid}`), with its devoluções. */
  const pixAtPsp = async (endToEndId: string) => {
    const read = await (await pspSandbox(ledger.stack.pspUrl)).call('GET', `/v2/pix/${endToEndId}`);
    expect(read.status).toBe(200);
    return JSON.parse(read.text) as {
      valor: string;
      devolucoes?: Array<{ id: string; valor: string; status: string }>;
    };
  };

  /** The token base units an owner's balances changed by in a transaction's token balances. */
  const unitsOf = (owner: string, balances: Array<{ owner: string; uiTokenAmount: { amount: string } }>) =>
    BigInt(balances.find((balance) => balance.owner === owner)?.uiTokenAmount.amount ?? '0');

  /** A confirmed transaction on the local chain, its token balances parsed. */
  const confirmedTransaction = (signature: string) =>
    rpc('getTransaction', [
      signature,
      { encoding: 'jsonParsed', commitment: 'confirmed', maxSupportedTransactionVersion: 0 },
    ]);

  /**
   * The operator returns held tokens: the transfer on the local chain gives the sender back exactly the funds' base
   * units, and the books take them out of suspense and the token holding under its signature, once.
   */
  const expectTokensReturned = async (funds: { funds_id: string; amount_token: number }, sender: string) => {
    const baseUnits = BigInt(Math.round(funds.amount_token * 1e6));
    expect(
      await ledger.client.admin('POST', `/admin/v1/received-funds/${funds.funds_id}/return`, {}),
    ).toMatchObject({
      status: 'returning',
    });
    const returned = await settledReturn(funds.funds_id, 'returned');
    const signature = returned.return_reference as string;
    const transaction = await confirmedTransaction(signature);
    expect(transaction.meta.err).toBeNull();
    expect(
      unitsOf(sender, transaction.meta.postTokenBalances) -
        unitsOf(sender, transaction.meta.preTokenBalances),
    ).toBe(baseUnits);
    await waitFor(async () => (await suspenseOf(funds.funds_id)).status === 'returned', {
      timeoutMs: 30_000,
      intervalMs: 200,
      what: 'the returned tokens out of suspense',
    });
    const journal = await outJournal(funds.funds_id);
    expect(journal).toEqual([
      expect.objectContaining({ account: 'suspense', rail_reference: signature }),
      expect.objectContaining({ account: 'tokens:usdc', quantity: `-${baseUnits}` }),
    ]);
    expect(journal[0]!.amount + journal[1]!.amount).toBe(0);
    expect(await suspenseOf(funds.funds_id)).toEqual({ status: 'returned', held: 0 });
  };

  /** A USDC payment of R$ 20,00 created for the test's business. */
  const usdcPayment = async (): Promise<string> =>
    (
      await ledger.client.createPayment(apiKey, {
        payment_method: 'crypto',
        amount: 2_000,
        crypto: { currency: 'usdc', network: 'solana' },
      })
    ).payment_id as string;

  test('a late PIX returned by the operator: one devolução of that Pix at the PSP for its amount, the funds returned, suspense and the PSP account both down, no difference', async () => {
    const { paymentId, funds } = await latePix(4_200);
    const sent = await ledger.client.admin('POST', `/admin/v1/received-funds/${funds.funds_id}/return`, {
      reason: 'Pago após o vencimento',
    });
    expect(sent).toMatchObject({ funds_id: funds.funds_id, status: 'returning', returned_by: 'operator' });
    // Asked again while it is on the rail: answered as it stands, no second devolução.
    expect(
      await ledger.client.admin('POST', `/admin/v1/received-funds/${funds.funds_id}/return`, {}),
    ).toMatchObject({
      status: expect.stringMatching(/^return(ing|ed)$/),
    });

    const returned = await settledReturn(funds.funds_id, 'returned');
    expect(returned).toMatchObject({ returned_by: 'operator', returned_at: expect.any(String) });
    const pix = await pixAtPsp(funds.reference);
    expect(pix.devolucoes).toEqual([
      expect.objectContaining({ id: returned.return_reference, valor: '42.00', status: 'DEVOLVIDO' }),
    ]);
    expect((await api('GET', `/v1/payments/${paymentId}/received-funds`)).body.data).toEqual([
      expect.objectContaining({ funds_id: funds.funds_id, status: 'returned', returned_by: 'operator' }),
    ]);

    await waitFor(async () => (await suspenseOf(funds.funds_id)).status === 'returned', {
      timeoutMs: 30_000,
      intervalMs: 200,
      what: 'the returned money out of suspense',
    });
    expect(await suspenseOf(funds.funds_id)).toEqual({ status: 'returned', held: 0 });
    expect(await outJournal(funds.funds_id)).toEqual([
      {
        kind: 'funds_returned',
        rail_reference: returned.return_reference,
        account: 'cash_psp',
        amount: -4_200,
        quantity: null,
      },
      {
        kind: 'funds_returned',
        rail_reference: returned.return_reference,
        account: 'suspense',
        amount: 4_200,
        quantity: null,
      },
    ]);
    // Never the business's: its balance never moved.
    expect((await api('GET', '/v1/balance')).body).toMatchObject({ available_brl: 0, pending_brl: 0 });

    const run = await reconcileWithNothingInFlight();
    expect(run).toMatchObject({ status: 'completed', difference_count: 0, differences: [] });
    expect(run.psp_balance_brl).toBe(run.books_cash_psp_brl);
    expect(
      await ledger.client.admin('POST', `/admin/v1/received-funds/${funds.funds_id}/return`, {}),
    ).toMatchObject({
      status: 'returned',
    });
    expect((await pixAtPsp(funds.reference)).devolucoes).toHaveLength(1);
  }, 120_000);

  test('the excess of an overpaid USDC payment returned by the operator: a transfer on the local chain to the payer, the tokens out of the ledger.books, no difference', async () => {
    const paymentId = await usdcPayment();
    expect(
      (await api('POST', `/v1/sandbox/payments/${paymentId}/simulate`, { outcome: 'paid', amount: 2_500 }))
        .status,
    ).toBe(202);
    const paid = await ledger.client.paymentIn(apiKey, paymentId, 'paid');
    const payer = (paid.payer as { address: string }).address;
    const excess = await heldFunds(paymentId);
    expect(excess).toMatchObject({ kind: 'excess', rail: 'crypto' });
    await fundsBooked(excess.funds_id);
    await expectTokensReturned(excess, payer);

    const run = await reconcileWithNothingInFlight();
    expect(run).toMatchObject({ status: 'completed', difference_count: 0, differences: [] });
    const usdc = run.tokens.find((token) => token.token === 'usdc')!;
    expect(usdc.wallet_base_units).toBe(usdc.books_base_units);
  }, 120_000);

  test('tokens short of a USDC payment that then expired (late, or partial when seen in its window) returned by the operator: back on chain to who sent them, out of the books', async () => {
    const paymentId = await usdcPayment();
    expect(
      (await api('POST', `/v1/sandbox/payments/${paymentId}/simulate`, { outcome: 'paid', amount: 800 }))
        .status,
    ).toBe(202);
    expect(
      (await api('POST', `/v1/sandbox/payments/${paymentId}/simulate`, { outcome: 'expired' })).status,
    ).toBe(202);
    // Kept as what the window collected short (partial), or, if the expiry was handled before the transfer was
    // seen, as late money: tokens held either way.
    const partial = await heldFunds(paymentId);
    expect(partial).toMatchObject({ kind: expect.stringMatching(/^(partial|late)$/), rail: 'crypto' });
    await fundsBooked(partial.funds_id);
    // Who sent it: the owner whose token balance the transfer to the request's reference lowered.
    const [{ signature }] = await ledger.books.query(
      `SELECT signature FROM solana_watcher.transfers WHERE reference = $1 OR signature = $1`,
      [partial.reference],
    );
    const transfer = await confirmedTransaction(signature);
    const sender = (
      transfer.meta.preTokenBalances as Array<{ owner: string; uiTokenAmount: { amount: string } }>
    )
      .map((balance) => balance.owner)
      .find(
        (owner) =>
          unitsOf(owner, transfer.meta.postTokenBalances) < unitsOf(owner, transfer.meta.preTokenBalances),
      )!;
    await expectTokensReturned(partial, sender);
  }, 120_000);

  test('a return the rail fails leaves the money held with the reason, in the books too; the operator returns it again', async () => {
    const { funds } = await latePix(1_500);
    await ledger.client.admin('POST', `/admin/v1/received-funds/${funds.funds_id}/return`, {
      reason: 'simulate:fail',
    });
    const held = await settledReturn(funds.funds_id, 'held');
    expect(held).toMatchObject({
      returned_by: null,
      return_reference: null,
      return_failure_reason: expect.stringContaining('simulate:fail'),
    });
    expect((await pixAtPsp(funds.reference)).devolucoes).toEqual([
      expect.objectContaining({ status: 'NAO_REALIZADO' }),
    ]);
    // The books still hold it: nothing left the PSP account.
    expect(await suspenseOf(funds.funds_id)).toEqual({ status: 'held', held: 1_500 });
    expect(await outJournal(funds.funds_id)).toEqual([]);

    await ledger.client.admin('POST', `/admin/v1/received-funds/${funds.funds_id}/return`, {});
    const returned = await settledReturn(funds.funds_id, 'returned');
    expect(returned).toMatchObject({ return_failure_reason: null });
    const devolucoes = (await pixAtPsp(funds.reference)).devolucoes!;
    expect(devolucoes).toHaveLength(2);
    expect(devolucoes.find((devolucao) => devolucao.status === 'DEVOLVIDO')).toMatchObject({
      id: returned.return_reference,
      valor: '15.00',
    });
    await waitFor(async () => (await suspenseOf(funds.funds_id)).status === 'returned', {
      timeoutMs: 30_000,
      intervalMs: 200,
      what: 'the money out of suspense on the second attempt',
    });
  }, 120_000);

  /** A JSON-RPC call to the local chain. */
  const rpc = async (method: string, params: unknown[]) => {
    const answer = await fetch(ledger.stack.solanaRpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const body = (await answer.json()) as { result: any; error?: unknown };
    if (body.error) throw new Error(JSON.stringify(body.error));
    return body.result;
  };
});
