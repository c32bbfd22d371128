import type { Client } from 'pg';
import type { CreatedSubscription } from './load';

/** What must hold for the load's subscriptions (Pix Automático) after a run under faults. */
export const subscriptionInvariantNames = {
  cycleOnce:
    'every subscription cycle charged at most once: at most one Pix per contract and cycle at the PSP, no live ' +
    'recurrence or cycle at the PSP the PIX adapter does not know, no cycle charge without its payment',
  cyclesSettled:
    'every cycle the PSP debited is its paid payment of that amount, nothing of it held aside (a cancel racing it ' +
    'included); every cycle the PSP ended undebited is failed or cancelled; no paid payment without its debit',
  atTheirEnd:
    'every subscription stands as its recurrence at the PSP (active as approved, cancelled as cancelled), its clock ' +
    'at the day last asked, and one cancelled during a debit is cancelled by the merchant',
} as const;

export interface SubscriptionFigures {
  subscriptions: number;
  cyclesPaid: number;
  cyclesFailed: number;
  /**
   * Cancels sent together with a debit: the cycle ended paid (the debit reported first), cancelled with its debit held
   * as late funds (the cancel first, the debit made at the PSP all the same), or cancelled and not charged.
   */
  racedCancelsPaid: number;
  racedCancelsHeld: number;
  racedCancelsNotCharged: number;
}

interface CycleRow {
  subscription_id: string;
  cycle: number;
  payment_id: string;
  status: string;
  amount_centavos: string;
  txid: string | null;
  cobr_status: string | null;
  pix: number;
  pix_centavos: string;
  held: number;
}

interface SubscriptionRow {
  id: string;
  status: string;
  clock_date: string | null;
  cancelled_by: string | null;
  rec_status: string | null;
}

/** The PSP's cobr statuses that end a cycle without a debit. */
const UNDEBITED = ['EXPIRADA', 'REJEITADA', 'CANCELADA'];

/** The gateway's status a recurrence's status at the PSP stands for. */
const STATUS_OF_REC: Record<string, string> = {
  CRIADA: 'pending_authorization',
  APROVADA: 'active',
  CANCELADA: 'cancelled',
  REJEITADA: 'cancelled',
  EXPIRADA: 'expired',
};

/**
 * The subscription invariants, read from the payment service's, the PIX adapter's and the PSP simulator's tables (one
 * database, a schema each), for the subscriptions the load made.
 */
export async function checkSubscriptions(
  client: Client,
  subscriptions: readonly CreatedSubscription[],
): Promise<{ invariants: Array<{ name: string; violations: string[] }>; figures: SubscriptionFigures }> {
  const ids = subscriptions.map((s) => s.subscriptionId);
  // A run without subscriptions (the rolling upgrade's released PSP simulator has no cobrs) has nothing to read.
  if (ids.length === 0)
    return {
      invariants: Object.values(subscriptionInvariantNames).map((name) => ({ name, violations: [] })),
      figures: {
        subscriptions: 0,
        cyclesPaid: 0,
        cyclesFailed: 0,
        racedCancelsPaid: 0,
        racedCancelsHeld: 0,
        racedCancelsNotCharged: 0,
      },
    };
  const cycles = (
    await client.query<CycleRow>(
      `SELECT p.subscription_id, p.cycle, p.id AS payment_id, p.status, p.amount_centavos, c.txid,
              r.status AS cobr_status,
              (SELECT count(*) FROM psp_simulator.pix x WHERE x.txid = c.txid)::int AS pix,
              (SELECT coalesce(sum(x.valor_centavos), 0) FROM psp_simulator.pix x WHERE x.txid = c.txid) AS pix_centavos,
              (SELECT count(*) FROM payment.received_funds f WHERE f.payment_id = p.id)::int AS held
         FROM payment.payments p
         LEFT JOIN pix_adapter.charges c ON c.payment_id = p.id
         LEFT JOIN psp_simulator.cobrs r ON r.txid = c.txid
        WHERE p.subscription_id = ANY($1)
        ORDER BY p.subscription_id, p.cycle`,
      [ids],
    )
  ).rows;
  // One payment per cycle is the payment service's own unique key; what can still charge twice is at the PSP: a second
  // recurrence for one contract (an open retried after a crash), each debiting the payer, or a live cycle the adapter
  // does not know (it would debit with nobody to record it). The run's PSP simulator holds only the load's books.
  const twice = (
    await client.query<{ what: string }>(
      `SELECT 'contract ' || r.contrato || ', PSP ciclo ' || c.ciclo || ': ' || count(*) || ' Pix' AS what
         FROM psp_simulator.recs r JOIN psp_simulator.cobrs c ON c.id_rec = r.id_rec
         JOIN psp_simulator.pix x ON x.txid = c.txid
        GROUP BY r.contrato, c.ciclo HAVING count(*) > 1
       UNION ALL
       SELECT 'recurrence ' || r.id_rec || ' (' || r.status || ', contract ' || r.contrato ||
              ') is at the PSP, not in the PIX adapter'
         FROM psp_simulator.recs r
        WHERE r.status IN ('CRIADA', 'APROVADA')
          AND NOT EXISTS (SELECT 1 FROM pix_adapter.recurrences a WHERE a.id_rec = r.id_rec)
       UNION ALL
       SELECT 'cobr ' || c.txid || ' (' || c.status || ', PSP ciclo ' || c.ciclo || ' of ' || c.id_rec ||
              ') is at the PSP, not in the PIX adapter'
         FROM psp_simulator.cobrs c
        WHERE (c.status IN ('CRIADA', 'ATIVA') OR EXISTS (SELECT 1 FROM psp_simulator.pix x WHERE x.txid = c.txid))
          AND NOT EXISTS (SELECT 1 FROM pix_adapter.charges ch WHERE ch.txid = c.txid)
       UNION ALL
       SELECT 'charge ' || ch.txid || ' of ' || ch.subscription_id || ' has no payment'
         FROM pix_adapter.charges ch
        WHERE ch.subscription_id = ANY($1)
          AND NOT EXISTS (SELECT 1 FROM payment.payments p WHERE p.id = ch.payment_id)`,
      [ids],
    )
  ).rows.map((row) => row.what);
  const standing = new Map(
    (
      await client.query<SubscriptionRow>(
        `SELECT s.id, s.status, s.clock_date::text AS clock_date, s.cancelled_by, pr.status AS rec_status
           FROM payment.subscriptions s
           LEFT JOIN pix_adapter.recurrences r ON r.subscription_id = s.id
           LEFT JOIN psp_simulator.recs pr ON pr.id_rec = r.id_rec
          WHERE s.id = ANY($1)`,
        [ids],
      )
    ).rows.map((row) => [row.id, row]),
  );

  const settled = cycles.flatMap((c) => {
    const what = `cycle ${c.cycle} of ${c.subscription_id} (${c.payment_id} ${c.status}, cobr ${c.cobr_status ?? 'none'}, ${c.pix} Pix)`;
    // The PSP debits a cycle only while its recurrence is approved, so a debit always came before any cancel: it is
    // the paid cycle, for its amount, and nothing of it is held aside.
    if (c.pix > 0)
      return c.status === 'paid' && c.pix_centavos === c.amount_centavos && c.held === 0
        ? []
        : [`${what}: debited ${c.pix_centavos} centavos at the PSP, ${c.held} held aside`];
    if (c.status === 'paid') return [`${what}: paid without a debit at the PSP`];
    if (c.cobr_status !== null && UNDEBITED.includes(c.cobr_status) && c.status === 'processing')
      return [`${what}: still processing though the PSP ended it`];
    return [];
  });

  const atTheirEnd = subscriptions.flatMap((s) => {
    const row = standing.get(s.subscriptionId);
    if (!row) return [`${s.subscriptionId} is missing`];
    const what = `${s.subscriptionId} (${row.status}, recurrence ${row.rec_status ?? 'none'}, clock ${row.clock_date})`;
    const problems: string[] = [];
    if (row.rec_status === null) {
      if (row.status !== 'pending_authorization' || s.authorizeRequested)
        problems.push('no recurrence at the PSP');
    } else if (STATUS_OF_REC[row.rec_status] !== row.status)
      problems.push('not as its recurrence at the PSP');
    if (s.authorizeRequested && row.status === 'pending_authorization')
      problems.push('authorized, still pending');
    if (s.advancedTo !== undefined && (row.clock_date ?? '') < s.advancedTo)
      problems.push(`its clock short of ${s.advancedTo}`);
    if (
      s.cancelledDuringDebit !== undefined &&
      (row.status !== 'cancelled' || row.cancelled_by !== 'merchant')
    )
      problems.push('cancelled by the merchant during a debit, but not so');
    return problems.map((problem) => `${what}: ${problem}`);
  });

  const raced = subscriptions
    .filter((s) => s.cancelledDuringDebit !== undefined)
    .map((s) => {
      const cycle = cycles.find(
        (c) => c.subscription_id === s.subscriptionId && c.cycle === s.cancelledDuringDebit,
      );
      return cycle?.status === 'paid'
        ? 'paid'
        : cycle !== undefined && cycle.pix > 0
          ? 'held'
          : 'not charged';
    });
  return {
    invariants: [
      { name: subscriptionInvariantNames.cycleOnce, violations: twice },
      { name: subscriptionInvariantNames.cyclesSettled, violations: settled },
      { name: subscriptionInvariantNames.atTheirEnd, violations: atTheirEnd },
    ],
    figures: {
      subscriptions: subscriptions.length,
      cyclesPaid: cycles.filter((c) => c.status === 'paid').length,
      cyclesFailed: cycles.filter((c) => c.status === 'failed').length,
      racedCancelsPaid: raced.filter((outcome) => outcome === 'paid').length,
      racedCancelsHeld: raced.filter((outcome) => outcome === 'held').length,
      racedCancelsNotCharged: raced.filter((outcome) => outcome === 'not charged').length,
    },
  };
}
