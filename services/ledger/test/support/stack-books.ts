import { DataSource } from 'typeorm';
import { SANDBOX_PSP_CLIENT } from '@gateway/config';
import { waitFor, type RunningStack, type StackClient } from '@gateway/testkit';

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
