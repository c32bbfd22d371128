import { DataSource } from 'typeorm';
import { SANDBOX_PSP_CLIENT } from '@gateway/config';
import type { Broker } from '@gateway/messaging';
import {
  connectTestClient,
  stackClient,
  startStack,
  waitFor,
  type RunningStack,
  type StackClient,
} from '@gateway/testkit';

/** A valid CNPJ, the payout key and holder of the tests' businesses. */
export const PAYOUT_CNPJ = '12345678000195';

/** A business's balance in centavos, as `GET /v1/balance` answers it in BRL. */
export interface CentavosBalance {
  available: number;
  pending: number;
  reserved: number;
  blocked: number;
}

export const centavos = (brl: number): number => Math.round(brl * 100);

/** A connection to the stack's database with the ledger's schema first on the search path (other schemas by name). */
export function openLedgerBooks(stack: RunningStack): Promise<DataSource> {
  return new DataSource({
    type: 'postgres',
    url: stack.env.config.DATABASE_URL,
    extra: { max: 2, options: '-c search_path=ledger' },
  }).initialize();
}

/** The business of `apiKey`'s balance through the public API. */
export async function balanceThroughApi(client: StackClient, apiKey: string): Promise<CentavosBalance> {
  const { status, body } = await client.api(apiKey, 'GET', '/v1/balance');
  if (status !== 200) throw new Error(`GET /v1/balance answered ${status}: ${JSON.stringify(body)}`);
  return {
    available: centavos(body.available_brl),
    pending: centavos(body.pending_brl),
    reserved: centavos(body.reserved_brl),
    blocked: centavos(body.blocked_brl),
  };
}

/** The sum of the net of every balance transaction of the business of `apiKey`, walked page by page through the API. */
export async function balanceTransactionsNet(client: StackClient, apiKey: string): Promise<number> {
  let net = 0;
  let after: string | undefined;
  for (;;) {
    const query = `limit=100${after ? `&starting_after=${after}` : ''}`;
    const { status, body } = await client.api(apiKey, 'GET', `/v1/balance_transactions?${query}`);
    if (status !== 200) throw new Error(`balance transactions answered ${status}: ${JSON.stringify(body)}`);
    for (const item of body.data as Array<{ net_brl: number }>) net += centavos(item.net_brl);
    if (!body.has_more || body.data.length === 0) return net;
    after = body.data[body.data.length - 1].id as string;
  }
}

/**
 * The PSP simulator of the stack as a payer's bank and the PSP's sandbox console call it (not through the gateway):
 * `call` sends an authenticated request to its API Pix prefix (`/v2...`).
 */
export async function pspSandbox(pspUrl: string): Promise<{
  call(method: string, path: string, body?: unknown): Promise<{ status: number; text: string }>;
}> {
  const basic = Buffer.from(`${SANDBOX_PSP_CLIENT.id}:${SANDBOX_PSP_CLIENT.secret}`).toString('base64');
  const token = (await (
    await fetch(`${pspUrl}/oauth/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    })
  ).json()) as { access_token: string };
  return {
    async call(method, path, body) {
      const answer = await fetch(`${pspUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: answer.status, text: await answer.text() };
    },
  };
}

/** A reconciliation report item, as the admin API answers it. */
export interface ReconciliationItem {
  kind: string;
  rail: string;
  reference: string | null;
  rail_amount_brl: number | null;
  books_amount_brl: number | null;
}

/**
 * Runs reconciliations through the admin API until one has no money in flight (nothing the books have not posted yet
 * within the grace window), and answers it: the caller checks its differences.
 */
export function settledReconciliation(
  client: StackClient,
  timeoutMs = 30_000,
): Promise<{ id: string; status: string; differences: ReconciliationItem[]; pending: ReconciliationItem[] }> {
  return waitFor(
    async () => {
      const run = await client.admin('POST', '/admin/v1/reconciliations', {});
      return run.status === 'completed' && run.pending.length === 0
        ? (run as {
            id: string;
            status: string;
            differences: ReconciliationItem[];
            pending: ReconciliationItem[];
          })
        : undefined;
    },
    { timeoutMs, intervalMs: 500, what: 'a completed reconciliation with no money in flight' },
  );
}

/** The whole stack with what the ledger's stack tests read it through, once its `beforeAll` has run. */
export interface LedgerStack {
  stack: RunningStack;
  client: StackClient;
  /** The stack's database, the ledger's schema first on the search path. */
  books: DataSource;
  /** A broker client, when the describe asked for one by name. */
  broker: Broker;
}

/**
 * Starts the whole stack (as `npm start` runs it, with `env` over its settings) before the describe's tests and stops
 * it after them, with a stack client, a connection to the books and, when `brokerName` is given, a broker client.
 * Call it in a describe's body; read the fields inside hooks and tests.
 */
export function useLedgerStack(env: Record<string, string> = {}, brokerName?: string): LedgerStack {
  const the = {} as LedgerStack;
  beforeAll(async () => {
    the.stack = await startStack(env);
    the.client = stackClient(the.stack);
    if (brokerName) the.broker = await connectTestClient(the.stack.env.config, brokerName);
    the.books = await openLedgerBooks(the.stack);
  }, 150_000);
  afterAll(async () => {
    if (process.env.E2E_LOGS) console.log(the.stack?.logs.join(''));
    await the.broker?.close();
    await the.books?.destroy();
    await the.stack?.stop();
  });
  return the;
}

/** A business (no fee on PIX) with a payout account, and one PIX payment of `amount` centavos paid, all available. */
export async function businessWithMoney(
  client: StackClient,
  name: string,
  amount: number,
): Promise<{ apiKey: string; businessId: string; paymentId: string }> {
  const business = await client.createBusiness(name, { pix: { percent_bps: 0, fixed_centavos: 0 } });
  await client.admin('PUT', `/admin/v1/businesses/${business.businessId}/payout-account`, {
    pix_key: PAYOUT_CNPJ,
    pix_key_type: 'cnpj',
    holder_document: PAYOUT_CNPJ,
  });
  const payment = await client.createPayment(business.apiKey, { payment_method: 'pix', amount });
  await client.payInSandbox(business.apiKey, payment.payment_id as string);
  await waitFor(async () => (await balanceThroughApi(client, business.apiKey)).available === amount, {
    timeoutMs: 30_000,
    intervalMs: 100,
    what: 'the payment available',
  });
  return { ...business, paymentId: payment.payment_id as string };
}
