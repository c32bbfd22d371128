import {
  getReconciliation,
  listReconciliations,
  newPublicId,
  runReconciliation,
  type PspReceivedPix,
  type PspStatement,
  type Reconciliation,
  type WalletBalances,
} from '@gateway/contracts';
import { aPaymentEvent, aRefundEvent } from '@gateway/testkit';
import { reconcileBooks, type ReconcileBooksDeps } from '../src/application/reconcile-books';
import { ReconciliationSchedule } from '../src/application/reconciliation-schedule';
import { ledgerServiceForTheseTests, type LedgerTestBed } from './support/ledger-service';

const GRACE_SECONDS = 60;
const minutesAgo = (minutes: number): string => new Date(Date.now() - minutes * 60_000).toISOString();
const txid = (): string =>
  newPublicId('tx')
    .replace(/[^A-Za-z0-9]/g, '0')
    .padEnd(30, '0')
    .slice(0, 30);
const endToEndId = (): string => `E${txid()}0A`;

/** The rails as the test sets them: what the PSP and the wallet would answer. */
interface Rails {
  received: PspReceivedPix[];
  balanceCentavos: number;
  usdcBaseUnits: bigint;
  usdcRecentBaseUnits: bigint;
}

function statementOf(rails: Rails, from: string, to: string): PspStatement {
  return {
    from,
    to,
    balance_centavos: rails.balanceCentavos,
    read_at: new Date().toISOString(),
    received: rails.received,
    sent: [],
  };
}

function walletOf(rails: Rails): WalletBalances {
  const token = (name: 'usdc' | 'usdt' | 'eurc', units: bigint, recent = 0n) => ({
    token: name,
    mint: `mint${name}`,
    base_units: units.toString(),
    decimals: 6,
    recent_base_units: recent.toString(),
  });
  return {
    wallet: 'wallet',
    read_at: new Date().toISOString(),
    balances: [
      token('usdc', rails.usdcBaseUnits, rails.usdcRecentBaseUnits),
      token('usdt', 0n),
      token('eurc', 0n),
    ],
  };
}

/** The use case's dependencies, the rails' owners answering as `rails` says (the ledger's side is the real service's). */
function depsAgainst(bed: LedgerTestBed, rails: Rails): ReconcileBooksDeps {
  return {
    dataSource: bed.service.dataSource,
    logger: bed.service.logger,
    ask: async (definition, payload) => {
      if (definition.name === 'pix.psp-statement.get.v1') {
        const { from, to } = payload as { from: string; to: string };
        return statementOf(rails, from, to) as never;
      }
      return walletOf(rails) as never;
    },
    settings: {
      periodSeconds: 86_400,
      graceSeconds: GRACE_SECONDS,
      railTimeoutMs: 1000,
      pspOpeningCentavos: 0,
    },
  };
}

function reconcileAgainst(bed: LedgerTestBed, rails: Rails): Promise<Reconciliation> {
  return reconcileBooks(depsAgainst(bed, rails), { trigger: 'operator' });
}

describe('reconciliation of the books with the rails', () => {
  const bed = ledgerServiceForTheseTests('ledger-reconciliation');
  /** What the rails hold once the books and the rails agree (built by the first test, copied by the others). */
  const agreed: Rails = { received: [], balanceCentavos: 0, usdcBaseUnits: 0n, usdcRecentBaseUnits: 0n };
  const withAgreed = (change: (rails: Rails) => void): Rails => {
    const rails = { ...agreed, received: [...agreed.received] };
    change(rails);
    return rails;
  };

  beforeAll(async () => {
    const businessId = newPublicId('biz');
    const pixTxid = txid();
    const pix = aPaymentEvent({
      business_id: businessId,
      status: 'paid',
      method: 'pix',
      amount_centavos: 10_000,
      fee_centavos: 199,
      external_id: pixTxid,
    });
    const crypto = aPaymentEvent({
      business_id: businessId,
      status: 'paid',
      method: 'crypto',
      token: 'usdc',
      amount_centavos: 5_000,
      fee_centavos: 100,
      amount_base_units: '1000000',
    });
    await bed.confirm(pix);
    await bed.confirm(crypto);
    await bed.refundSucceeded(
      aRefundEvent({
        business_id: businessId,
        payment_id: pix.payment.payment_id,
        method: 'pix',
        amount_centavos: 1_000,
        status: 'succeeded',
        external_id: 'devolucao1',
      }),
    );
    await bed.refundSucceeded(
      aRefundEvent({
        business_id: businessId,
        payment_id: crypto.payment.payment_id,
        method: 'crypto',
        amount_centavos: 2_500,
        status: 'succeeded',
      }),
    );
    agreed.received.push({
      end_to_end_id: endToEndId(),
      txid: pixTxid,
      amount_centavos: 10_000,
      paid_at: minutesAgo(5),
      returns: [
        {
          id: 'devolucao1',
          rtr_id: `D${txid()}0A`,
          amount_centavos: 1_000,
          status: 'DEVOLVIDO',
          requested_at: minutesAgo(4),
          settled_at: minutesAgo(4),
        },
      ],
    });
    agreed.balanceCentavos = 9_000;
    // Half the payment's tokens went back with the refund of half its price.
    agreed.usdcBaseUnits = 500_000n;
  });

  test('books that agree with the PSP and the wallet: no difference; each journal names its rail movement', async () => {
    const run = await reconcileAgainst(bed, agreed);

    expect(run).toMatchObject({
      status: 'completed',
      failure_reason: null,
      psp_balance_centavos: 9_000,
      books_cash_psp_centavos: 9_000,
      psp_received_centavos: 10_000,
      psp_sent_centavos: 1_000,
      difference_count: 0,
      differences: [],
      pending: [],
    });
    expect(run.tokens).toContainEqual({
      token: 'usdc',
      wallet_base_units: '500000',
      books_base_units: '500000',
      decimals: 6,
    });
    const references = await bed.sql<{ kind: string; rail_reference: string | null }>(
      `SELECT kind, rail_reference FROM journals WHERE kind IN ('payment', 'refund') ORDER BY id`,
    );
    expect(references.map((row) => row.rail_reference)).toContain(agreed.received[0]!.txid);
    expect(references.map((row) => row.rail_reference)).toContain('devolucao1');
  });

  test('a Pix at the PSP that no journal names is a difference, and so is the balance; a young one is pending', async () => {
    const unbooked = { end_to_end_id: endToEndId(), txid: txid(), amount_centavos: 4_321, returns: [] };
    const young = { end_to_end_id: endToEndId(), txid: txid(), amount_centavos: 700, returns: [] };
    const rails = withAgreed((r) => {
      r.received.push(
        { ...unbooked, paid_at: minutesAgo(10) },
        { ...young, paid_at: new Date().toISOString() },
      );
      r.balanceCentavos += 4_321 + 700;
    });

    const run = await reconcileAgainst(bed, rails);

    expect(run.status).toBe('completed');
    expect(run.differences.map((item) => [item.kind, item.reference, item.rail_centavos])).toEqual([
      ['received_not_in_books', unbooked.txid, 4_321],
      ['balance_mismatch', null, 9_000 + 4_321 + 700],
    ]);
    expect(run.differences[1]!.books_centavos).toBe(9_000);
    expect(run.pending.map((item) => [item.kind, item.reference, item.rail_centavos])).toEqual([
      ['received_not_in_books', young.txid, 700],
    ]);
    expect(run).toMatchObject({ difference_count: 2, pending_count: 1 });
  });

  test('a balance that drifts with no movement to explain it is a difference', async () => {
    const run = await reconcileAgainst(
      bed,
      withAgreed((r) => {
        r.balanceCentavos -= 1;
      }),
    );
    expect(run.differences).toEqual([
      expect.objectContaining({
        kind: 'balance_mismatch',
        rail: 'pix',
        rail_centavos: 8_999,
        books_centavos: 9_000,
      }),
    ]);
  });

  test('tokens on chain the books do not hold are a difference, unless they arrived within the grace window', async () => {
    const drifted = await reconcileAgainst(
      bed,
      withAgreed((r) => {
        r.usdcBaseUnits += 3n;
      }),
    );
    expect(drifted.differences).toEqual([
      expect.objectContaining({
        kind: 'token_balance_mismatch',
        rail: 'solana',
        reference: 'usdc',
        rail_base_units: '500003',
        books_base_units: '500000',
      }),
    ]);

    const arriving = await reconcileAgainst(
      bed,
      withAgreed((r) => {
        r.usdcBaseUnits += 3n;
        r.usdcRecentBaseUnits = 3n;
      }),
    );
    expect(arriving.differences).toEqual([]);
    expect(arriving.pending).toEqual([expect.objectContaining({ kind: 'token_balance_mismatch' })]);
  });

  test('runs are stored as found and read back; a run whose rails do not answer is stored failed', async () => {
    const stored = await reconcileAgainst(
      bed,
      withAgreed((r) => {
        r.balanceCentavos += 5;
      }),
    );
    const read = await bed.request(getReconciliation, { reconciliation_id: stored.reconciliation_id });
    expect(read).toEqual({ ok: true, result: stored });

    // No PIX adapter nor Solana watcher runs beside this ledger: each ask times out.
    const failed = await bed.request(runReconciliation, {});
    if (!failed.ok) throw new Error(JSON.stringify(failed.error));
    expect(failed.result).toMatchObject({ status: 'failed', trigger: 'operator', difference_count: 0 });
    expect(failed.result.failure_reason).toMatch(
      /PIX adapter could not be asked.*Solana watcher could not be asked/,
    );

    const page = await bed.request(listReconciliations, { limit: 2 });
    if (!page.ok) throw new Error(JSON.stringify(page.error));
    expect(page.result.data.map((run) => run.reconciliation_id)).toEqual([
      failed.result.reconciliation_id,
      stored.reconciliation_id,
    ]);
    expect(page.result.has_more).toBe(true);
    // A report is never changed afterwards.
    await expect(bed.sql(`UPDATE reconciliations SET difference_count = 0`)).rejects.toThrow(/immutable/);
  });

  test('an unknown run is NOT_FOUND; a period beyond 31 days is refused', async () => {
    expect(await bed.request(getReconciliation, { reconciliation_id: newPublicId('rec') })).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND' },
    });
    expect(
      await bed.request(runReconciliation, { from: new Date(Date.now() - 40 * 86_400_000).toISOString() }),
    ).toMatchObject({ ok: false, error: { code: 'INVALID_FIELDS' } });
  });

  test('the schedule runs each slot once whatever the number of replicas, and the next slot again', async () => {
    const scheduledRuns = async () =>
      Number(
        (
          await bed.sql<{ n: string }>(`SELECT count(*) AS n FROM reconciliations WHERE trigger = 'schedule'`)
        )[0]!.n,
      );
    let clock = new Date('2031-01-01T00:00:30Z');
    const replicas = () =>
      [1, 2, 3].map(
        () =>
          new ReconciliationSchedule(bed.service.dataSource, depsAgainst(bed, agreed), {
            intervalSeconds: 3600,
            logger: bed.service.logger,
            startupDelayMs: 0,
            checkEveryMs: 3_600_000,
            now: () => clock,
          }),
      );
    // Each replica's first pass runs at start; stopping waits for it.
    const firstSlot = replicas();
    for (const replica of firstSlot) replica.start();
    await Promise.all(firstSlot.map((replica) => replica.stop()));
    expect(await scheduledRuns()).toBe(1);

    clock = new Date('2031-01-01T01:00:30Z');
    const secondSlot = replicas();
    for (const replica of secondSlot) replica.start();
    await Promise.all(secondSlot.map((replica) => replica.stop()));
    expect(await scheduledRuns()).toBe(2);
  });

  test('the run command delivered twice runs once and answers the same run', async () => {
    const runs = async () =>
      Number((await bed.sql<{ n: string }>(`SELECT count(*) AS n FROM reconciliations`))[0]!.n);
    const before = await runs();
    const messageId = newPublicId('msg');
    const first = await bed.request(runReconciliation, {}, { messageId });
    const again = await bed.request(runReconciliation, {}, { messageId });
    expect(again).toEqual(first);
    expect(await runs()).toBe(before + 1);
  });
});
