import {
  newPublicId,
  openCryptoRequest,
  openPixCharge,
  simulateCryptoOutcome,
  type CommandDefinition,
} from '@gateway/contracts';
import { waitFor } from '@gateway/testkit';
import { pspSandbox, settledReconciliation, useLedgerStack } from './support/stack-books';

/**
 * The whole stack as `npm start` runs it: money that names a payment the gateway does not know — a Pix paid to a
 * charge whose payment the payment service does not have, tokens sent to such a payment's reference — belongs to no
 * business. The operator sends it back to its payer through the rail it came by, as any held money: a devolução of
 * that Pix at the PSP, a transfer of those tokens on the local chain; the books take it out of suspense (and the
 * rail's holdings) once, no business's balance moves, and the books agree with the rails.
 */
describe('money naming a payment the gateway does not know, returned by the operator through the stack', () => {
  // A second of grace: what the rails moved more than a second ago and the books do not hold is a difference.
  const ledger = useLedgerStack(
    { RECONCILIATION_GRACE_SECONDS: '1', RECONCILIATION_INTERVAL_SECONDS: '0' },
    'unknown-payment-return-e2e',
  );

  /** A command to a rail, as the payment service sends it; its result, or the test fails. */
  const command = async <P, R>(definition: CommandDefinition<P, R>, payload: P): Promise<R> => {
    const reply = await ledger.broker.request(definition, payload, { timeoutMs: 15_000 });
    if (!reply.ok) throw new Error(`${definition.name}: ${JSON.stringify(reply.error)}`);
    return reply.result;
  };

  const returnFunds = (fundsId: string) =>
    ledger.client.admin('POST', `/admin/v1/received-funds/${fundsId}/return`, {
      reason: 'Pagamento desconhecido',
    });

  /** The operator's record of the money kept for `paymentId`, once it is in `status`. */
  const operatorRecord = (paymentId: string, status: string) =>
    waitFor(
      async () => {
        const page = (await ledger.client.admin(
          'GET',
          `/admin/v1/received-funds?kind=unmatched&limit=100`,
        )) as {
          data: Array<Record<string, any>>;
        };
        return page.data.find((funds) => funds.payment_id === paymentId && funds.status === status);
      },
      { timeoutMs: 60_000, intervalMs: 250, what: `the money kept for ${paymentId} ${status}` },
    );

  /** The books' record of the funds' money and what suspense holds for it (a credit account: minus its entries). */
  const suspenseOf = async (fundsId: string): Promise<{ status: string; held: number } | undefined> => {
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
  const suspenseIs = (fundsId: string, expected: { status: string; held: number }) =>
    waitFor(
      async () => {
        const row = await suspenseOf(fundsId);
        return row?.status === expected.status && row.held === expected.held ? row : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, what: `funds ${fundsId} ${expected.status} in the books` },
    );

  /** The journal that took the funds' money out of suspense: its entries by account. */
  const outJournal = (fundsId: string) =>
    ledger.books.query(
      `SELECT j.kind, j.rail_reference, e.account, e.business_id, e.amount_centavos::int AS amount
         FROM suspense_funds f JOIN journals j ON j.cause_key = 'funds:out:' || f.money_key
         JOIN entries e ON e.journal_id = j.id
        WHERE f.funds_id = $1 ORDER BY e.account`,
      [fundsId],
    );

  /** The Pix as the PSP keeps it (`GET /pix/{e2eid}`), with its devoluções. */
  const pixAtPsp = async (endToEndId: string) => {
    const read = await (await pspSandbox(ledger.stack.pspUrl)).call('GET', `/v2/pix/${endToEndId}`);
    expect(read.status).toBe(200);
    return JSON.parse(read.text) as { devolucoes?: Array<{ id: string; valor: string; status: string }> };
  };

  /** A Pix paid at the PSP to a charge the PIX adapter opened for a payment the payment service does not know. */
  const pixOfAnUnknownPayment = async (centavos: number) => {
    const paymentId = newPublicId('pay');
    const charge = await command(openPixCharge, {
      payment_id: paymentId,
      business_name: 'Loja Desconhecida',
      amount_centavos: centavos,
      expires_in_seconds: 3_600,
    });
    const paid = await (
      await pspSandbox(ledger.stack.pspUrl)
    ).call('POST', `/v2/cob/pagar/${charge.txid}`, {});
    expect(paid.status).toBe(200);
    const funds = await operatorRecord(paymentId, 'held');
    expect(funds).toMatchObject({
      kind: 'unmatched',
      rail: 'pix',
      business_id: null,
      amount_brl: centavos / 100,
    });
    await suspenseIs(funds.funds_id, { status: 'held', held: centavos });
    return { paymentId, funds };
  };

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
  type TokenBalance = { owner: string; uiTokenAmount: { amount: string } };
  const unitsOf = (owner: string, balances: TokenBalance[]) =>
    BigInt(balances.find((balance) => balance.owner === owner)?.uiTokenAmount.amount ?? '0');
  const confirmedTransaction = (signature: string) =>
    rpc('getTransaction', [
      signature,
      { encoding: 'jsonParsed', commitment: 'confirmed', maxSupportedTransactionVersion: 0 },
    ]);

  test('a Pix naming an unknown payment: one devolução of that Pix at the PSP, the funds returned, out of suspense and the PSP account with no business, no difference; asked twice, one devolução', async () => {
    const { funds } = await pixOfAnUnknownPayment(2_700);
    const [first, second] = await Promise.all([returnFunds(funds.funds_id), returnFunds(funds.funds_id)]);
    for (const answer of [first, second])
      expect(answer).toMatchObject({
        funds_id: funds.funds_id,
        business_id: null,
        status: expect.stringMatching(/^return(ing|ed)$/),
        returned_by: 'operator',
      });

    const returned = await operatorRecord(funds.payment_id, 'returned');
    expect(returned).toMatchObject({ funds_id: funds.funds_id, returned_by: 'operator', business_id: null });
    expect((await pixAtPsp(funds.reference)).devolucoes).toEqual([
      expect.objectContaining({ id: returned.return_reference, valor: '27.00', status: 'DEVOLVIDO' }),
    ]);
    await suspenseIs(funds.funds_id, { status: 'returned', held: 0 });
    expect(await outJournal(funds.funds_id)).toEqual([
      {
        kind: 'funds_returned',
        rail_reference: returned.return_reference,
        account: 'cash_psp',
        business_id: null,
        amount: -2_700,
      },
      {
        kind: 'funds_returned',
        rail_reference: returned.return_reference,
        account: 'suspense',
        business_id: null,
        amount: 2_700,
      },
    ]);

    // Asked again once returned: as it stands, nothing more at the PSP.
    expect(await returnFunds(funds.funds_id)).toMatchObject({ status: 'returned' });
    expect((await pixAtPsp(funds.reference)).devolucoes).toHaveLength(1);

    const run = await settledReconciliation(ledger.client);
    expect(run).toMatchObject({ status: 'completed', differences: [] });
  }, 180_000);

  test('tokens sent to the reference of an unknown payment: back on chain to who sent them, the record closed in the ledger.books, the wallet agreeing with the books', async () => {
    const paymentId = newPublicId('pay');
    const request = await command(openCryptoRequest, {
      payment_id: paymentId,
      business_name: 'Loja Desconhecida',
      amount_centavos: 1_500,
      token: 'usdc',
    });
    await command(simulateCryptoOutcome, { payment_id: paymentId, outcome: 'paid', amount_centavos: null });
    const funds = await operatorRecord(paymentId, 'held');
    // Tokens of a payment the gateway does not know have no price: recorded with no value, nothing booked.
    expect(funds).toMatchObject({
      kind: 'unmatched',
      rail: 'crypto',
      business_id: null,
      value_brl: null,
    });
    await suspenseIs(funds.funds_id, { status: 'held', held: 0 });
    const [{ signature: paidWith }] = await ledger.books.query(
      `SELECT signature FROM solana_watcher.transfers WHERE reference = $1`,
      [request.reference],
    );
    const paying = await confirmedTransaction(paidWith);
    const sender = (paying.meta.preTokenBalances as TokenBalance[])
      .map((balance) => balance.owner)
      .find(
        (owner) =>
          unitsOf(owner, paying.meta.postTokenBalances) < unitsOf(owner, paying.meta.preTokenBalances),
      )!;

    expect(await returnFunds(funds.funds_id)).toMatchObject({ status: 'returning', business_id: null });
    const returned = await operatorRecord(paymentId, 'returned');
    const back = await confirmedTransaction(returned.return_reference as string);
    expect(back.meta.err).toBeNull();
    expect(unitsOf(sender, back.meta.postTokenBalances) - unitsOf(sender, back.meta.preTokenBalances)).toBe(
      BigInt(funds.amount_base_units as string),
    );
    // Booked with no value: the record closes, and nothing is posted.
    await suspenseIs(funds.funds_id, { status: 'returned', held: 0 });
    expect(await outJournal(funds.funds_id)).toEqual([]);

    const run = await settledReconciliation(ledger.client);
    expect(run).toMatchObject({ status: 'completed', differences: [] });
    const { tokens } = run as unknown as {
      tokens: Array<{ token: string; wallet_base_units: string; books_base_units: string }>;
    };
    const usdc = tokens.find((token) => token.token === 'usdc')!;
    expect(usdc.wallet_base_units).toBe(usdc.books_base_units);
  }, 180_000);

  test('money naming an unknown payment assigned to a business first cannot be returned: refused, nothing sent to the PSP', async () => {
    const { apiKey } = await ledger.client.createBusiness('Quitanda Atribuída', {
      pix: { percent_bps: 0, fixed_centavos: 0 },
    });
    const target = (await ledger.client.createPayment(apiKey, { payment_method: 'pix', amount: 1_000 }))
      .payment_id as string;
    const { funds } = await pixOfAnUnknownPayment(1_900);
    expect(
      await ledger.client.admin('POST', `/admin/v1/received-funds/${funds.funds_id}/assign`, {
        payment_id: target,
      }),
    ).toMatchObject({ status: 'assigned', assigned_payment_id: target });
    await expect(returnFunds(funds.funds_id)).rejects.toThrow(/422.*INVALID_STATUS/);
    expect((await pixAtPsp(funds.reference)).devolucoes ?? []).toEqual([]);
    await suspenseIs(funds.funds_id, { status: 'assigned', held: 0 });

    const run = await settledReconciliation(ledger.client);
    expect(run).toMatchObject({ status: 'completed', differences: [] });
  }, 180_000);
});
