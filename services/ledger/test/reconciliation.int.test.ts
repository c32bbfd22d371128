import {
  createPayout,
  fundsReceived,
  fundsReturned,
  getBalance,
  getReconciliation,
  listReconciliations,
  newPublicId,
  runReconciliation,
  setPayoutAccount,
  type FundsReceived,
  type MessageDefinition,
  type PspReceivedPix,
  type PspSentPix,
  type PspStatement,
  type Reconciliation,
  type WalletBalances,
} from '@gateway/contracts';
import { aPaymentEvent, aRefundEvent, publishAndAwaitHandling, waitFor } from '@gateway/testkit';
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
  sent: PspSentPix[];
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
    sent: rails.sent,
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
  const agreed: Rails = {
    received: [],
    sent: [],
    balanceCentavos: 0,
    usdcBaseUnits: 0n,
    usdcRecentBaseUnits: 0n,
  };
  const withAgreed = (change: (rails: Rails) => void): Rails => {
    const rails = { ...agreed, received: [...agreed.received], sent: [...agreed.sent] };
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

  test('every other money movement names what the rail lists: a payout paid, money in suspense and returned by a refund, two Pix on one charge: no difference', async () => {
    const post = <P>(definition: MessageDefinition<P>, payload: P) =>
      publishAndAwaitHandling(bed.env.config, definition, payload, {});
    const inSuspense = (overrides: Partial<FundsReceived>): FundsReceived => {
      const fundsId = newPublicId('fund');
      return {
        event_id: newPublicId('evt'),
        occurred_at: minutesAgo(3),
        funds_id: fundsId,
        money_key: `funds:${fundsId}`,
        kind: 'excess',
        rail: 'pix',
        payment_id: newPublicId('pay'),
        business_id: newPublicId('biz'),
        amount_centavos: 1,
        amount_base_units: null,
        token: null,
        rail_reference: null,
        ...overrides,
      };
    };
    const businessId = newPublicId('biz');

    // A charge paid, then paid again by a second Pix on its txid: the payment names the txid, the excess its own Pix.
    const twiceTxid = txid();
    const [firstPix, secondPix] = [endToEndId(), endToEndId()];
    const paidTwice = aPaymentEvent({
      business_id: businessId,
      status: 'paid',
      method: 'pix',
      amount_centavos: 10_000,
      fee_centavos: 0,
      external_id: twiceTxid,
    });
    await bed.confirm(paidTwice);
    await post(
      fundsReceived,
      inSuspense({
        payment_id: paidTwice.payment.payment_id,
        business_id: businessId,
        amount_centavos: 2_500,
        rail_reference: secondPix,
      }),
    );

    // A Pix after the charge expired: no payment journal, suspense names the Pix.
    const lateTxid = txid();
    const latePix = endToEndId();
    await post(fundsReceived, inSuspense({ kind: 'late', amount_centavos: 3_000, rail_reference: latePix }));

    // One Pix paying more than asked, refunded whole: the refund and the excess it carried both name the devolução.
    const overTxid = txid();
    const overPix = endToEndId();
    const overpaid = aPaymentEvent({
      business_id: businessId,
      status: 'paid',
      method: 'pix',
      amount_centavos: 4_000,
      fee_centavos: 0,
      external_id: overTxid,
    });
    await bed.confirm(overpaid);
    const excess = inSuspense({
      payment_id: overpaid.payment.payment_id,
      business_id: businessId,
      amount_centavos: 600,
      rail_reference: overPix,
    });
    await post(fundsReceived, excess);
    const refund = aRefundEvent({
      business_id: businessId,
      payment_id: overpaid.payment.payment_id,
      method: 'pix',
      amount_centavos: 4_000,
      status: 'succeeded',
      external_id: 'devolucao-over',
    });
    await bed.refundSucceeded(refund);
    await post(fundsReturned, {
      event_id: newPublicId('evt'),
      occurred_at: minutesAgo(2),
      funds_id: excess.funds_id,
      money_key: excess.money_key,
      rail: 'pix',
      payment_id: excess.payment_id,
      business_id: businessId,
      returned_by: refund.refund.refund_id,
      rail_reference: 'devolucao-over',
    });

    // USDC in suspense (a transfer naming several payments): its base units counted in the token account.
    const signature = newPublicId('sig').replace(/[^A-Za-z0-9]/g, '');
    await post(
      fundsReceived,
      inSuspense({
        kind: 'unmatched',
        rail: 'crypto',
        money_key: `crypto:${signature}:0`,
        amount_centavos: 2_000,
        amount_base_units: '400000',
        token: 'usdc',
        rail_reference: signature,
      }),
    );

    // A payout of what the business has available, paid by the PSP.
    const cnpj = '12345678000195';
    const account = await bed.request(setPayoutAccount, {
      business_id: businessId,
      pix_key: cnpj,
      pix_key_type: 'cnpj',
      holder_document: cnpj,
    });
    expect(account.ok).toBe(true);
    await waitFor(
      async () => {
        const balance = await bed.request(getBalance, { business_id: businessId });
        return balance.ok && balance.result.available_centavos >= 5_000;
      },
      { what: 'the payment settled' },
    );
    const payout = await bed.request(createPayout, { business_id: businessId, amount_centavos: 5_000 });
    if (!payout.ok) throw new Error(JSON.stringify(payout.error));
    const payoutPix = endToEndId();
    await bed.payoutSettled({
      payout_id: payout.result.payout_id,
      outcome: 'paid',
      end_to_end_id: payoutPix,
      failure_reason: null,
      settled_at: minutesAgo(1),
    });

    agreed.received.push(
      {
        end_to_end_id: firstPix,
        txid: twiceTxid,
        amount_centavos: 10_000,
        paid_at: minutesAgo(4),
        returns: [],
      },
      {
        end_to_end_id: secondPix,
        txid: twiceTxid,
        amount_centavos: 2_500,
        paid_at: minutesAgo(3),
        returns: [],
      },
      { end_to_end_id: latePix, txid: lateTxid, amount_centavos: 3_000, paid_at: minutesAgo(3), returns: [] },
      {
        end_to_end_id: overPix,
        txid: overTxid,
        amount_centavos: 4_600,
        paid_at: minutesAgo(3),
        returns: [
          {
            id: 'devolucao-over',
            rtr_id: `D${txid()}0A`,
            amount_centavos: 4_600,
            status: 'DEVOLVIDO',
            requested_at: minutesAgo(2),
            settled_at: minutesAgo(2),
          },
        ],
      },
    );
    agreed.sent.push({
      end_to_end_id: payoutPix,
      id_envio: `payout${txid()}`.slice(0, 35),
      amount_centavos: 5_000,
      status: 'REALIZADO',
      requested_at: minutesAgo(1),
      settled_at: minutesAgo(1),
    });
    agreed.balanceCentavos += 10_000 + 2_500 + 3_000 + 4_600 - 4_600 - 5_000;
    agreed.usdcBaseUnits += 400_000n;

    const run = await reconcileAgainst(bed, agreed);
    expect(run.differences).toEqual([]);
    expect(run.pending).toEqual([]);
    expect(run).toMatchObject({
      status: 'completed',
      psp_balance_centavos: agreed.balanceCentavos,
      books_cash_psp_centavos: agreed.balanceCentavos,
    });
    expect(run.tokens).toContainEqual(
      expect.objectContaining({ token: 'usdc', books_base_units: agreed.usdcBaseUnits.toString() }),
    );
    const named = await bed.sql<{ kind: string; rail_reference: string }>(
      `SELECT kind, rail_reference FROM journals WHERE rail_reference = ANY($1) ORDER BY id`,
      [[secondPix, latePix, overPix, 'devolucao-over', signature, payoutPix]],
    );
    expect(named.map((row) => [row.kind, row.rail_reference])).toEqual([
      ['funds_received', secondPix],
      ['funds_received', latePix],
      ['funds_received', overPix],
      ['refund', 'devolucao-over'],
      ['funds_returned', 'devolucao-over'],
      ['funds_received', signature],
      ['payout', payoutPix],
    ]);

    // Each kind reported when the PSP says another amount than the books.
    const mismatch = async (change: (rails: Rails) => void) =>
      (await reconcileAgainst(bed, withAgreed(change))).differences
        .filter((item) => item.kind !== 'balance_mismatch')
        .map((item) => [item.kind, item.reference, item.rail_centavos, item.books_centavos]);
    const replace = <T>(list: T[], index: number, item: T) => list.splice(index, 1, item);
    const at = (e2e: string) => agreed.received.findIndex((pix) => pix.end_to_end_id === e2e);
    expect(await mismatch((r) => replace(r.sent, 0, { ...r.sent[0]!, amount_centavos: 5_001 }))).toEqual([
      ['received_amount_mismatch', payoutPix, -5_001, -5_000],
    ]);
    expect(
      await mismatch((r) =>
        replace(r.received, at(secondPix), { ...r.received[at(secondPix)]!, amount_centavos: 2_499 }),
      ),
    ).toEqual([['received_amount_mismatch', twiceTxid, 12_499, 12_500]]);
    expect(
      await mismatch((r) =>
        replace(r.received, at(latePix), { ...r.received[at(latePix)]!, amount_centavos: 3_100 }),
      ),
    ).toEqual([['received_amount_mismatch', lateTxid, 3_100, 3_000]]);
    expect(
      await mismatch((r) => {
        const over = r.received[at(overPix)]!;
        replace(r.received, at(overPix), {
          ...over,
          returns: [{ ...over.returns[0]!, amount_centavos: 4_000 }],
        });
      }),
    ).toEqual([['received_amount_mismatch', 'devolucao-over', -4_000, -4_600]]);
  });
});
