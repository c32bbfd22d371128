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
