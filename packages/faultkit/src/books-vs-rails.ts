import { Client } from 'pg';
import { waitFor } from '@gateway/testkit-core';
import { stackClient, type RunningStack } from '@gateway/testkit';

/** One item of a reconciliation report, as the operator API answers it. */
interface ReportItem {
  kind: string;
  rail: string;
  reference: string | null;
  detail: string;
}

interface Report {
  status: string;
  differences: ReportItem[];
  pending: ReportItem[];
}

/**
 * What the books say the platform holds against what the rails say it holds, once the run has settled: the operator
 * API's on-demand reconciliation (PIX received and sent at the PSP over the period, the PSP balance, the wallet's
 * token balances), asked again until nothing is in flight (the stack gives a second of grace), then every difference
 * it reports, described. Empty when the books and the rails agree to the centavo and the base unit.
 */
export async function differencesWithTheRails(
  stack: Pick<RunningStack, 'gatewayUrl' | 'adminToken'> & { env: { database: { url: string } } },
  timeoutMs: number,
): Promise<string[]> {
  const found = await reconciliationDifferences(stack, timeoutMs);
  return found.length === 0 ? found : explained(stack.env.database.url, found);
}

async function reconciliationDifferences(
  stack: Pick<RunningStack, 'gatewayUrl' | 'adminToken'>,
  timeoutMs: number,
): Promise<string[]> {
  const client = stackClient(stack);
  let latest: Report | undefined;
  try {
    await waitFor(
      async () => {
        latest = (await client.admin('POST', '/admin/v1/reconciliations', {})) as unknown as Report;
        return latest.status === 'completed' && latest.pending.length === 0;
      },
      { timeoutMs, intervalMs: 1_000, what: 'a reconciliation with nothing in flight' },
    );
  } catch (err) {
    if (!latest) return [`no reconciliation could be run: ${String(err)}`];
    if (latest.status !== 'completed') return [`the last reconciliation ${latest.status}`];
    return latest.pending.map((item) => `still in flight after ${timeoutMs / 1000} s: ${describe(item)}`);
  }
  return latest!.differences.map(describe);
}

const describe = (item: ReportItem): string =>
  `${item.kind} (${item.rail}${item.reference ? ` ${item.reference}` : ''}): ${item.detail}`;

/**
 * Each difference with what the services hold under its reference, for its diagnosis: the PIX adapter's refund or
 * return of that devolução, the payment service's refund or held funds it settles, and the journals naming it.
 */
async function explained(databaseUrl: string, differences: string[]): Promise<string[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await Promise.all(
      differences.map(async (line) => {
        const reference = /^\w+ \(\w+ ([^)\s]+)\)/.exec(line)?.[1];
        if (reference === undefined) return line;
        const { rows } = await client.query<Record<string, unknown>>(
          `SELECT r.refund_id, r.funds_id, r.status AS adapter_status, r.updated_at AS adapter_updated_at,
                  (SELECT status FROM payment.refunds WHERE id = r.refund_id) AS payment_refund,
                  (SELECT row_to_json(f) FROM (SELECT returned_by, returned_at, return_id, assigned_at
                     FROM payment.received_funds WHERE funds_id = r.funds_id) f) AS payment_funds,
                  (SELECT count(*)::int FROM ledger.journals WHERE rail_reference = $1) AS journals
             FROM pix_adapter.pix_refunds r WHERE r.devolucao_id = $1`,
          [reference],
        );
        return rows.length === 0
          ? `${line} [no refund or return of the PIX adapter has it]`
          : `${line} ${JSON.stringify(rows)}`;
      }),
    );
  } catch (err) {
    return differences.map((line) => `${line} [not explained: ${String(err)}]`);
  } finally {
    await client.end();
  }
}
