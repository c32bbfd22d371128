import { randomBytes } from 'node:crypto';
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

/** The PSP simulator as a payer's bank and the PSP's console see it: a charge made and paid there, not by the gateway. */
async function pixPaidAtThePspAlone(pspUrl: string, centavos: number): Promise<string> {
  const basic = Buffer.from(`${SANDBOX_PSP_CLIENT.id}:${SANDBOX_PSP_CLIENT.secret}`).toString('base64');
  const token = (await (
    await fetch(`${pspUrl}/oauth/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    })
  ).json()) as { access_token: string };
  const headers = { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json' };
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

  beforeAll(async () => {
    // A second of grace: what the PSP received more than a second ago and the books do not hold is a difference.
    stack = await startStack({ RECONCILIATION_GRACE_SECONDS: '1', RECONCILIATION_INTERVAL_SECONDS: '0' });
    client = stackClient(stack);
    broker = await connectTestClient(stack.env.config, 'reconciliation-e2e');
  }, 150_000);

  afterAll(async () => {
    if (process.env.E2E_LOGS) console.log(stack?.logs.join(''));
    await broker?.close();
    await stack?.stop();
  });

  const reconcile = async (): Promise<Report> =>
    (await client.admin('POST', '/admin/v1/reconciliations', {})) as unknown as Report;

  test('paid PIX and USDC payments: no difference, the tokens equal on chain and in the books; a Pix paid at the PSP with no charge of ours: a difference reported', async () => {
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
      psp_balance_brl: 123.45,
      books_cash_psp_brl: 123.45,
    });
    // The tokens the payer sent (6 decimals), on chain and in the books, in base units.
    const paidUnits = (usdc.crypto as { amount: number }).amount
      .toFixed(6)
      .replace('.', '')
      .replace(/^0+/, '');
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
          rail_amount_brl: 128.45,
          books_amount_brl: 123.45,
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
});
