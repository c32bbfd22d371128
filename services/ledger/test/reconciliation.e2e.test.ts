import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { getBalance, type Balance } from '@gateway/contracts';
import { SANDBOX_PIX_KEY, SANDBOX_PSP_CLIENT } from '@gateway/config';
import type { Broker } from '@gateway/messaging';
import {
  connectTestClient,
  stackClient,
  startStack,
  waitFor,
  type RunningStack,
  type StackClient,
} from '@gateway/testkit';

interface ReportItem {
  kind: string;
  rail: string;
  reference: string | null;
  rail_amount_brl: number | null;
  books_amount_brl: number | null;
}
interface Report {
  id: string;
  status: string;
  difference_count: number;
  tokens: Array<Record<string, unknown>>;
  psp_balance_brl: number | null;
  books_cash_psp_brl: number | null;
  differences: ReportItem[];
  pending: ReportItem[];
}

/** The PSP simulator's headers, as its console (or a payer's bank in the sandbox) authenticates. */
async function pspHeaders(pspUrl: string): Promise<Record<string, string>> {
  const basic = Buffer.from(`${SANDBOX_PSP_CLIENT.id}:${SANDBOX_PSP_CLIENT.secret}`).toString('base64');
  const token = (await (
    await fetch(`${pspUrl}/oauth/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    })
  ).json()) as { access_token: string };
  return { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json' };
}

/** The PSP simulator as a payer's bank and the PSP's console see it: a charge made and paid there, not by the gateway. */
async function pixPaidAtThePspAlone(pspUrl: string, centavos: number): Promise<string> {
  const headers = await pspHeaders(pspUrl);
  const txid = randomBytes(16).toString('hex');
  const valor = (centavos / 100).toFixed(2);
  const created = await fetch(`${pspUrl}/v2/cob/${txid}`, {
    method: 'PUT',
    headers,
    body: JSON.stringify({
      calendario: { expiracao: 3600 },
      valor: { original: valor },
      chave: SANDBOX_PIX_KEY,
    }),
  });
  expect(created.status).toBe(201);
  const paid = await fetch(`${pspUrl}/v2/cob/pagar/${txid}`, { method: 'POST', headers, body: '{}' });
  expect(paid.status).toBe(200);
  return txid;
}

/**
 * Reconciliation through the whole stack: the ledger asks the real PIX adapter (against the PSP simulator) and the
 * real Solana watcher (against the local chain), through the operator API.
 */
describe('reconciliation of the books with the rails, in the stack', () => {
  let stack: RunningStack;
  let client: StackClient;
  let broker: Broker;
  let db: DataSource;

  beforeAll(async () => {
    // A second of grace: what the PSP received more than a second ago and the books do not hold is a difference.
    stack = await startStack({ RECONCILIATION_GRACE_SECONDS: '1', RECONCILIATION_INTERVAL_SECONDS: '0' });
    client = stackClient(stack);
    broker = await connectTestClient(stack.env.config, 'reconciliation-e2e');
    db = await new DataSource({
      type: 'postgres',
      url: stack.env.config.DATABASE_URL,
      extra: { max: 2 },
    }).initialize();
  }, 150_000);

  afterAll(async () => {
    if (process.env.E2E_LOGS) console.log(stack?.logs.join(''));
    await broker?.close();
    await db?.destroy();
    await stack?.stop();
  });

  const reconcile = async (): Promise<Report> =>
    (await client.admin('POST', '/admin/v1/reconciliations', {})) as unknown as Report;

  test('a payout through the PIX rail, an overpaid PIX refunded with its excess, a late PIX, a partial refund, an overpaid USDC payment: no difference', async () => {
    const { apiKey, businessId } = await client.createBusiness('Empório Fechado', {
      pix: { percent_bps: 0, fixed_centavos: 0 },
      crypto: { percent_bps: 0, fixed_centavos: 0 },
    });
    const cnpj = '12345678000195';
    await client.admin('PUT', `/admin/v1/businesses/${businessId}/payout-account`, {
      pix_key: cnpj,
      pix_key_type: 'cnpj',
      holder_document: cnpj,
    });
    const api = (method: string, path: string, body?: unknown) => client.api(apiKey, method, path, body);
    const pix = async (amount: number): Promise<string> =>
      (await client.createPayment(apiKey, { payment_method: 'pix', amount })).payment_id as string;
    const heldFunds = (paymentId: string) =>
      waitFor(async () => (await api('GET', `/v1/payments/${paymentId}/received-funds`)).body.data?.[0], {
        timeoutMs: 30_000,
        intervalMs: 250,
        what: `the funds kept aside for ${paymentId}`,
      });
    const settledRefund = (refundId: string) =>
      waitFor(
        async () => {
          const { body } = await api('GET', `/v1/refunds/${refundId}`);
          return body.status !== 'pending' ? body : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 200, what: `refund ${refundId} settled` },
      );

    // A PIX paying R$ 125 on a R$ 100 charge: the payment names the charge, its excess the Pix.
    const overpaid = await pix(10_000);
    expect(
      (await api('POST', `/v1/sandbox/payments/${overpaid}/simulate`, { outcome: 'paid', amount: 12_500 }))
        .status,
    ).toBe(202);
    await client.paymentIn(apiKey, overpaid, 'paid');
    expect(await heldFunds(overpaid)).toMatchObject({ kind: 'excess', status: 'held' });

    // A PIX after the charge expired, the PSP's own window still open: suspense, naming the Pix.
    const expired = await pix(4_200);
    expect(
      (await api('POST', `/v1/sandbox/payments/${expired}/simulate`, { outcome: 'expired' })).status,
    ).toBe(202);
    await client.paymentIn(apiKey, expired, 'expired');
    const [{ external_id: expiredTxid }] = await db.query(
      `SELECT external_id FROM payment.payments WHERE id = $1`,
      [expired],
    );
    const paidLate = await fetch(`${stack.pspUrl}/v2/cob/pagar/${expiredTxid}`, {
      method: 'POST',
      headers: await pspHeaders(stack.pspUrl),
      body: '{}',
    });
    expect(paidLate.status).toBe(200);
    expect(await heldFunds(expired)).toMatchObject({ kind: 'late', status: 'held' });

    // USDC paying more than asked: the excess's base units are the books' too.
    const usdc = (
      await client.createPayment(apiKey, {
        payment_method: 'crypto',
        amount: 2_000,
        crypto: { currency: 'usdc', network: 'solana' },
      })
    ).payment_id as string;
    expect(
      (await api('POST', `/v1/sandbox/payments/${usdc}/simulate`, { outcome: 'paid', amount: 2_500 })).status,
    ).toBe(202);
    await client.paymentIn(apiKey, usdc, 'paid');
    expect(await heldFunds(usdc)).toMatchObject({ kind: 'excess', status: 'held' });

    // A payment refunded in part, and a payout of R$ 50 through the PIX rail, paid by the PSP.
    const partly = await pix(8_000);
    await client.payInSandbox(apiKey, partly);
    await client.paymentIn(apiKey, partly, 'paid');
    await waitFor(async () => (await api('GET', '/v1/balance')).body.available_brl >= 180, {
      timeoutMs: 30_000,
      intervalMs: 200,
      what: 'the payments available',
    });
    const payout = await client.api(
      apiKey,
      'POST',
      '/v1/payouts',
      { amount: 5_000 },
      {
        'Idempotency-Key': `po-${randomBytes(8).toString('hex')}`,
      },
    );
    expect(payout.status).toBe(201);
    const paidOut = await waitFor(
      async () => {
        const { body } = await api('GET', `/v1/payouts/${payout.body.payout_id}`);
        return body.status !== 'pending' ? body : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, what: 'the payout settled at the PSP' },
    );
    expect(paidOut.status).toBe('paid');
    const partial = await api('POST', `/v1/payments/${partly}/refunds`, { amount: 3_000 });
    expect((await settledRefund(partial.body.refund_id)).status).toBe('succeeded');
    // The overpaid PIX refunded whole: its excess goes back in the same devolução.
    const whole = await api('POST', `/v1/payments/${overpaid}/refunds`, {});
    expect(whole.body.returned_funds_id).toEqual(expect.any(String));
    expect((await settledRefund(whole.body.refund_id)).status).toBe('succeeded');
    await waitFor(
      async () =>
        (await api('GET', `/v1/payments/${overpaid}/received-funds`)).body.data?.[0]?.status === 'returned',
      { timeoutMs: 30_000, intervalMs: 200, what: 'the excess returned with the refund' },
    );

    // Once everything is posted (nothing left in flight within the one second of grace): no difference.
    const run = await waitFor(
      async () => {
        const latest = await reconcile();
        return latest.pending.length === 0 ? latest : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 500, what: 'nothing in flight' },
    );
    expect(run).toMatchObject({ status: 'completed', difference_count: 0, differences: [] });
    expect(run.psp_balance_brl).toBe(run.books_cash_psp_brl);
    // R$ 125 in and back out, R$ 42 late, R$ 80 less R$ 30 refunded, R$ 50 paid out.
    expect(run.psp_balance_brl).toBe(42 + 80 - 30 - 50);
    const usdcHeld = run.tokens.find((token) => token.token === 'usdc')!;
    expect(usdcHeld.wallet_base_units).toBe(usdcHeld.books_base_units);
    expect(BigInt(usdcHeld.wallet_base_units as string)).toBeGreaterThan(0n);
  });

  test('paid PIX and USDC payments: no difference, the tokens equal on chain and in the books; a Pix paid at the PSP with no charge of ours: a difference reported', async () => {
    // What the rails held before (the test before this one moved money too), in centavos and USDC base units.
    const before = await reconcile();
    const heldBefore = Math.round(before.psp_balance_brl! * 100);
    const usdcBefore = BigInt(
      (before.tokens.find((token) => token.token === 'usdc')?.wallet_base_units as string | undefined) ?? '0',
    );
    const brl = (centavos: number) => (heldBefore + centavos) / 100;
    const { apiKey, businessId } = await client.createBusiness('Mercearia Conferida', {
      pix: { percent_bps: 100, fixed_centavos: 0 },
      crypto: { percent_bps: 0, fixed_centavos: 0 },
    });
    const paymentId = (await client.createPayment(apiKey, { payment_method: 'pix', amount: 12_345 }))
      .payment_id as string;
    await client.payInSandbox(apiKey, paymentId);
    await client.paymentIn(apiKey, paymentId, 'paid');
    const usdc = await client.createPayment(apiKey, {
      payment_method: 'crypto',
      amount: 2_000,
      crypto: { currency: 'usdc', network: 'solana' },
    });
    await client.payInSandbox(apiKey, usdc.payment_id as string);
    await client.paymentIn(apiKey, usdc.payment_id as string, 'paid');
    await waitFor(
      async () => {
        const reply = await broker.request(getBalance, { business_id: businessId }, { timeoutMs: 5000 });
        const balance: Balance | undefined = reply.ok ? reply.result : undefined;
        return balance && balance.available_centavos + balance.pending_centavos === 12_222 + 2_000
          ? balance
          : undefined;
      },
      { what: 'both payments posted', timeoutMs: 30_000 },
    );

    const agreed = await reconcile();
    expect(agreed).toMatchObject({
      status: 'completed',
      difference_count: 0,
      differences: [],
      psp_balance_brl: brl(12_345),
      books_cash_psp_brl: brl(12_345),
    });
    // The tokens the payer sent (6 decimals), on chain and in the books, in base units.
    const paidUnits = (
      usdcBefore + BigInt((usdc.crypto as { amount: number }).amount.toFixed(6).replace('.', ''))
    ).toString();
    expect(agreed.tokens).toContainEqual({
      token: 'usdc',
      wallet_base_units: paidUnits,
      books_base_units: paidUnits,
      decimals: 6,
    });
    expect(await client.admin('GET', `/admin/v1/reconciliations/${agreed.id}`)).toEqual(agreed);

    const stray = await pixPaidAtThePspAlone(stack.pspUrl, 500);
    // Within the grace window it is money in flight; past it, a Pix no journal names.
    const drifted = await waitFor(
      async () => {
        const run = await reconcile();
        return run.difference_count > 0 ? run : undefined;
      },
      { what: 'the stray Pix reported', timeoutMs: 20_000, intervalMs: 500 },
    );
    expect(drifted.differences).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'received_not_in_books', reference: stray, rail_amount_brl: 5 }),
        expect.objectContaining({
          kind: 'balance_mismatch',
          rail_amount_brl: brl(12_845),
          books_amount_brl: brl(12_345),
        }),
      ]),
    );
    const latest = (await client.admin('GET', '/admin/v1/reconciliations?limit=1')) as unknown as {
      data: Report[];
      has_more: boolean;
    };
    expect(latest.data.map((run) => run.id)).toEqual([drifted.id]);
    expect(latest.has_more).toBe(true);
  });

  test('a PIX paid before the period and refunded in it: the PSP statement shows its devolução, no difference names it', async () => {
    const { apiKey } = await client.createBusiness('Loja de Ontem', {
      pix: { percent_bps: 0, fixed_centavos: 0 },
      crypto: { percent_bps: 0, fixed_centavos: 0 },
    });
    const api = (method: string, path: string, body?: unknown) => client.api(apiKey, method, path, body);
    const paymentId = (await client.createPayment(apiKey, { payment_method: 'pix', amount: 9_000 }))
      .payment_id as string;
    await client.payInSandbox(apiKey, paymentId);
    await client.paymentIn(apiKey, paymentId, 'paid');
    // The period starts more than the second of grace after the Pix, so the PSP's list of the period leaves it out.
    const since = new Date(Date.now() + 2_000);
    await waitFor(() => Date.now() > since.getTime(), { what: 'the period to start after the payment' });

    const asked = await api('POST', `/v1/payments/${paymentId}/refunds`, { amount: 2_500 });
    expect(asked.status).toBe(201);
    const refund = await waitFor(
      async () => {
        const { body } = await api('GET', `/v1/refunds/${asked.body.refund_id}`);
        return body.status !== 'pending' ? body : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, what: 'the refund settled' },
    );
    expect(refund.status).toBe('succeeded');
    // Past the second of grace, a journal the PSP's statement does not show would be a difference.
    const posted = Date.now();
    await waitFor(() => Date.now() > posted + 1_500, { what: 'the refund journal older than the grace' });

    const run = await waitFor(
      async () => {
        const latest = (await client.admin('POST', '/admin/v1/reconciliations', {
          from: since.toISOString(),
        })) as unknown as Report;
        return latest.pending.length === 0 ? latest : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 500, what: 'nothing in flight' },
    );
    const devolucaoId = refund.external_id as string;
    expect(run.status).toBe('completed');
    expect(run.differences.filter((item) => item.reference === devolucaoId)).toEqual([]);
    expect(run.differences.filter((item) => item.kind === 'in_books_not_at_psp')).toEqual([]);
  });
});
