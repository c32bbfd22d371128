import {
  newPublicId,
  type Reconciliation,
  type ReconciliationItem,
  type ReconciliationStatus,
} from '@gateway/contracts';
import { freePort, startLoggingProcess, waitFor, type LoggingProcess } from '@gateway/testkit';
import { insertReconciliation } from '../src/persistence';
import { ledgerServiceForTheseTests } from './support/ledger-service';

/** A stored run, started `minutesAgo`, with `pix` and `solana` differences. */
function aRun(
  minutesAgo: number,
  {
    status = 'completed',
    pix = 0,
    solana = 0,
  }: { status?: ReconciliationStatus; pix?: number; solana?: number },
): Reconciliation {
  const started = new Date(Date.now() - minutesAgo * 60_000);
  const difference = (rail: ReconciliationItem['rail']): ReconciliationItem => ({
    kind: rail === 'pix' ? 'received_not_in_books' : 'token_balance_mismatch',
    rail,
    reference: newPublicId('ref'),
    rail_centavos: 100,
    books_centavos: null,
    rail_base_units: null,
    books_base_units: null,
    occurred_at: null,
    detail: 'a difference',
  });
  const differences = [
    ...Array.from({ length: pix }, () => difference('pix')),
    ...Array.from({ length: solana }, () => difference('solana')),
  ];
  return {
    reconciliation_id: newPublicId('rec'),
    status,
    trigger: 'operator',
    period_from: new Date(started.getTime() - 86_400_000).toISOString(),
    period_to: started.toISOString(),
    started_at: started.toISOString(),
    finished_at: new Date(started.getTime() + 1000).toISOString(),
    failure_reason: status === 'failed' ? 'the PSP did not answer' : null,
    psp_balance_centavos: null,
    books_cash_psp_centavos: null,
    psp_received_centavos: null,
    psp_sent_centavos: null,
    tokens: [],
    difference_count: differences.length,
    pending_count: 0,
    differences,
    pending: [],
  };
}

/** `ledger_reconciliation_differences` by rail as a replica's /metrics shows it (absent: never set). */
async function reportedDifferences(metricsUrl: string): Promise<Record<string, number>> {
  const body = await fetch(metricsUrl).then((response) => response.text());
  const reported: Record<string, number> = {};
  for (const [, labels, value] of body.matchAll(/^ledger_reconciliation_differences\{([^}]*)\} (\S+)$/gm))
    reported[/rail="([^"]+)"/.exec(labels!)![1]!] = Number(value);
  return reported;
}

describe('every ledger replica reports the newest reconciliation run, whichever replica ran it', () => {
  const replicas: Array<{ process: LoggingProcess; metricsUrl: string }> = [];
  // Declared before the bed, so it runs before the bed's (jest runs afterAll hooks in the order they were declared):
  // a replica still connected when the bed deletes its broker names would declare them again, and they would outlive
  // the file on the shared broker.
  afterAll(async () => {
    for (const { process: replica } of replicas) replica.child.kill('SIGTERM');
    await Promise.all(replicas.map(({ process: replica }) => replica.exited));
  });
  // Migrates the schema and stores the runs, as another replica would.
  const bed = ledgerServiceForTheseTests('ledger-gauges');

  beforeAll(async () => {
    for (let i = 0; i < 2; i += 1) {
      const port = await freePort();
      const process_ = startLoggingProcess('services/ledger/src/main.ts', {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        ...bed.env.config,
        METRICS_PORT: String(port),
        RECONCILIATION_INTERVAL_SECONDS: '0',
        RECONCILIATION_METRICS_REFRESH_MS: '200',
      });
      replicas.push({ process: process_, metricsUrl: `http://127.0.0.1:${port}/metrics` });
    }
    for (const replica of replicas)
      await waitFor(
        async () =>
          replica.process.child.exitCode === null &&
          (await fetch(replica.metricsUrl).then(
            (response) => response.ok,
            () => false,
          )),
        { timeoutMs: 60_000, intervalMs: 250, what: 'a ledger replica to serve its metrics' },
      );
  }, 90_000);

  const bothReport = (expected: Record<string, number>) =>
    waitFor(
      async () => {
        const reports = await Promise.all(replicas.map(({ metricsUrl }) => reportedDifferences(metricsUrl)));
        const inOrder = (figures: Record<string, number>) => JSON.stringify(Object.entries(figures).sort());
        return reports.every((reported) => inOrder(reported) === inOrder(expected)) || undefined;
      },
      { what: `both replicas to report ${JSON.stringify(expected)}` },
    );

  test("a newer run's figures replace an older run's on both, a failed run passes over, and the order is the runs' start", async () => {
    await insertReconciliation(bed.service.dataSource.manager, aRun(30, { pix: 2, solana: 1 }));
    await bothReport({ pix: 2, solana: 1 });

    // The newest run found one token difference and no PIX one; a run started before it is stored after it, and a
    // failed run after both compared nothing.
    await insertReconciliation(bed.service.dataSource.manager, aRun(10, { solana: 1 }));
    await insertReconciliation(bed.service.dataSource.manager, aRun(20, { pix: 5 }));
    await insertReconciliation(bed.service.dataSource.manager, aRun(1, { status: 'failed' }));
    await bothReport({ pix: 0, solana: 1 });
  });
});
