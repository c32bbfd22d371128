import { createHmac } from 'node:crypto';
import amqp from 'amqplib';
import { Client } from 'pg';
import { DEFAULT_PAYMENT_WINDOW_SECONDS } from '@gateway/config';
import { openPaymentStatuses, publicEventLogs } from '@gateway/contracts';
import type { CreatedPayment, LoadGenerator, LoadBusiness } from './load';
import type { PrivateBroker } from './private-broker';
import {
  checkSubscriptions,
  subscriptionInvariantNames,
  type SubscriptionFigures,
} from './subscription-invariants';
import type { FaultTimeline } from './timeline';
import type { WebhookReceiver, ReceivedDelivery } from '@gateway/testkit';

/** A business's webhook on the receiver. */
export interface LoadWebhook {
  business: LoadBusiness;
  path: string;
  secret: string;
  /** The public events it is subscribed to (`payment.confirmed`, `payout.paid`...). */
  events: readonly string[];
}

/** Beyond the faults it met, how long a client may need to get through (a restart, pools reconnecting). */
const RETRY_ALLOWANCE_MS = 15_000;

/** What must hold after any run under faults. */
/** The shorter of the two payment windows the stack runs with (a crypto payment's). */
const SHORTEST_VALIDITY_MS = Math.min(...Object.values(DEFAULT_PAYMENT_WINDOW_SECONDS)) * 1000;

export const invariantNames = {
  created: 'every payment that got a 201 exists with its amount',
  onePerKey: 'one payment per idempotency key',
  paid: 'every payment asked to be paid is paid',
  unpaidOpen: 'every payment not asked to be paid is still open',
  oneConfirmation: 'exactly one payment.confirmed event per paid payment',
  delivered: 'every payment.confirmed delivered at least once to its own business',
  everyChangeDelivered:
    "every state change has its delivery: each public event of the load's payments, refunds and payouts (in the " +
    "payment service's and the ledger's event logs) accepted at least once by every webhook subscribed to it",
  signed: 'every delivery correctly signed, to its own business only',
  oneJournal: 'exactly one ledger journal (and balance transaction) per paid payment, none for another',
  onePayoutJournal:
    'exactly one reservation journal per payout, and one outcome journal per paid or failed payout (its own), none ' +
    'for a pending one',
  payoutsSettled:
    'every payout that got a 201 exists with its amount, once per idempotency key, and ends paid or failed, as the ' +
    'PIX adapter settled its send',
  oneRefundJournal:
    'exactly one reservation journal per refund; a succeeded one has one refund journal (and balance transaction) ' +
    'and nothing released, a failed one its reservation released once and no refund journal',
  refundsSettled:
    'every refund that got a 201 exists for its payment with its amount, once per idempotency key, and ends ' +
    'succeeded or failed',
  oneSuspenseJournal:
    'exactly one funds:received journal and at most one funds:out journal per money_key in suspense; money out of ' +
    'suspense (returned or assigned) has its funds:out journal, money still held none',
  heldFundsSettled:
    'every held funds the operator returned or assigned ends returned (by the operator, one devolução succeeded at ' +
    'the PIX adapter) or assigned, in the payment service and the books alike, with exactly one funds:out journal',
  oneAdjustment:
    'every adjustment that got a 201 exists once per idempotency key, for its business and amount, with exactly one ' +
    'journal and balance transaction',
  booksBalance:
    'every journal sums to zero; each business balance equals its entries, its balance transactions and its paid ' +
    'net, plus what suspense credited it (less its fee) and its adjustments, less its paid payouts and succeeded ' +
    'refunds; each of its four balances its own entries; pending what its unsettled payments have left',
  booksMatchRails:
    'reconciliation finds no difference between the books and the rails (PSP account, its Pix in and out, the wallet)',
  noParked: 'no parked message',
  noUnsent: 'no unsent outbox row',
  no500: 'no 500 seen by any client (nor any request given up)',
  validAnswered: 'every valid request answered with success (201/202) once faults pass',
  shortRetries:
    'no client retried longer than the faults in its way (and in the way of the work it waits for) plus 15 s',
  recovered: 'the stack is ready again after every fault',
  ...subscriptionInvariantNames,
} as const;

export interface Invariant {
  name: string;
  /** Empty when the invariant holds. */
  violations: string[];
}

export interface Figures {
  payments: number;
  pix: number;
  crypto: number;
  askedToBePaid: number;
  paid: number;
  clientRequests: number;
  clientRetries: number;
  clientServiceUnavailable: number;
  longestRetryMs: number;
  deliveries: number;
  deliveredEvents: number;
  duplicateDeliveries: number;
  failedDeliveryAttempts: number;
  payouts: number;
  payoutsPaid: number;
  payoutsFailed: number;
  payoutsRefusedForBalance: number;
  refunds: number;
  refundsSucceeded: number;
  refundsFailed: number;
  refundsRefusedForBalance: number;
  /** Held funds of the load (late or excess PIX), and those the operator returned and assigned. */
  heldFunds: number;
  heldFundsReturned: number;
  heldFundsAssigned: number;
  adjustments: number;
  /** The load's subscriptions and their cycles. */
  subscriptions: SubscriptionFigures;
}

export interface InvariantReport {
  invariants: Invariant[];
  figures: Figures;
}

export interface InvariantSources {
  databaseUrl: string;
  broker: PrivateBroker;
  load: LoadGenerator;
  receiver: WebhookReceiver;
  webhooks: LoadWebhook[];
  timeline: FaultTimeline;
}

interface PaymentRow {
  id: string;
  business_id: string;
  method: string;
  status: string;
  amount_centavos: string;
  fee_centavos: string;
  load_key: string | null;
}

/** What the ledger holds for one business of the load. */
interface BookRow {
  business_id: string;
  balance: string | null;
  entries: string | null;
  transactions: string | null;
  /** Each of the four balances against minus the sum of its own account's entries, and pending against the
   * remainders of the settlements not done yet. */
  parts: Array<{ account: string; balance: string; entries: string | null }>;
  unsettled: string | null;
  pending: string | null;
}

/** A public event as its owner's event log (outbox) holds it. */
interface PublicEventRow {
  event_id: string;
  type: string;
  business_id: string;
  /** The payment, refund or payout it is about. */
  subject: string;
  log: string;
}

interface ConfirmedEventRow {
  event_id: string;
  payment_id: string;
  business_id: string;
}

/** What the databases, the broker and the receiver hold about the load: read once per check. */
interface Observed {
  payments: Map<string, PaymentRow>;
  subscriptions: Awaited<ReturnType<typeof checkSubscriptions>>;
  /** The business of each subscription of the load's businesses. */
  subscriptionOwners: Map<string, { business_id: string }>;
  duplicateKeys: Array<{ load_key: string; ids: string[] }>;
  confirmedEvents: ConfirmedEventRow[];
  publicEvents: PublicEventRow[];
  unsentOutboxRows: Array<{ schema: string; name: string; count: string }>;
  parkedQueues: Array<{ name: string; messages: number }>;
  /** Journals (through their balance transactions) of type payment, by payment id. */
  paymentJournals: Map<string, number>;
  unbalancedJournals: Array<{ journal_id: string; sum: string }>;
  /** Each payout of the load's businesses, with how many journals it has under each of its cause keys. */
  payoutJournals: Array<{
    payout_id: string;
    business_id: string;
    amount_centavos: string;
    status: string;
    /** The PIX adapter's status of its send (null if it never heard of the payout). */
    adapter_status: string | null;
    requested: number;
    paid: number;
    failed: number;
  }>;
  /** Each refund of the load's businesses, with its reservation and how many journals it has of each kind. */
  refunds: Array<{
    refund_id: string;
    payment_id: string;
    business_id: string;
    amount_centavos: string;
    status: string;
    reservation_status: string | null;
    reserved: number;
    released: number;
    refunded: number;
  }>;
  /** Each received funds of the load's payments, as the payment service and the books keep it. */
  heldFunds: HeldFundsRow[];
  /** Each adjustment of the load's businesses, with how many journals and balance transactions it has. */
  adjustments: Array<{
    id: string;
    business_id: string | null;
    amount_centavos: string;
    idempotency_key: string | null;
    journals: number;
    transactions: number;
  }>;
  books: BookRow[];
}

/** Received funds as the payment service and the books keep them. */
export interface HeldFundsRow {
  funds_id: string;
  payment_id: string;
  /** In the payment service: returned (by whom), assigned, or neither (held or being returned). */
  returned_by: string | null;
  returned: boolean;
  assigned: boolean;
  /** In the books (null: the ledger never heard of them). */
  money_key: string | null;
  status: string | null;
  amount_centavos: string | null;
  closed_business_id: string | null;
  received: number;
  out: number;
  /** What the funds:out journal took as fee (credited to fee_revenue). */
  fee_centavos: string | null;
  /** Devoluções of the funds the PIX adapter saw succeed. */
  devolucoes: number;
}

async function observe(sources: InvariantSources): Promise<Observed> {
  const client = new Client({ connectionString: sources.databaseUrl });
  await client.connect();
  try {
    const businessIds = sources.webhooks.map((w) => w.business.businessId);
    const payments = await client.query<PaymentRow>(
      `SELECT id, business_id, method, status, amount_centavos, fee_centavos,
              metadata::json->>'load_key' AS load_key
         FROM payment.payments WHERE business_id = ANY($1)`,
      [businessIds],
    );
    const duplicateKeys = await client.query<{ load_key: string; ids: string[] }>(
      `SELECT metadata::json->>'load_key' AS load_key, array_agg(id ORDER BY created_at) AS ids
         FROM payment.payments WHERE business_id = ANY($1) AND metadata IS NOT NULL
        GROUP BY 1 HAVING count(*) > 1`,
      [businessIds],
    );
    const confirmedEvents = await client.query<ConfirmedEventRow>(
      `SELECT envelope->'payload'->>'event_id' AS event_id,
              envelope->'payload'->'payment'->>'payment_id' AS payment_id,
              envelope->'payload'->>'business_id' AS business_id
         FROM payment.outbox WHERE envelope->>'type' = 'payment.confirmed'`,
    );
    const publicEvents: PublicEventRow[] = [];
    for (const { command, events } of publicEventLogs) {
      const logged = await client.query<PublicEventRow>(
        `SELECT envelope->'payload'->>'event_id' AS event_id, envelope->>'type' AS type,
                envelope->'payload'->>'business_id' AS business_id,
                COALESCE(envelope->'payload'->'payment'->>'payment_id', envelope->'payload'->'refund'->>'refund_id',
                         envelope->'payload'->'payout'->>'payout_id', envelope->'payload'->'dispute'->>'dispute_id')
                  AS subject,
                $3::text AS log
           FROM "${command.handledBy.replace(/-/g, '_')}".outbox
          WHERE name = ANY($1) AND envelope->'payload'->>'business_id' = ANY($2)`,
        [events.map((event) => event.name), businessIds, command.handledBy],
      );
      publicEvents.push(...logged.rows);
    }
    const outboxSchemas = await client.query<{ table_schema: string }>(
      `SELECT table_schema FROM information_schema.tables WHERE table_name = 'outbox'`,
    );
    const unsentOutboxRows: Observed['unsentOutboxRows'] = [];
    for (const { table_schema: schema } of outboxSchemas.rows) {
      const unsent = await client.query<{ name: string; count: string }>(
        `SELECT name, count(*) AS count FROM "${schema}".outbox WHERE published_at IS NULL GROUP BY name`,
      );
      unsentOutboxRows.push(...unsent.rows.map((row) => ({ schema, ...row })));
    }
    const paymentJournals = await client.query<{ payment_id: string; journals: string }>(
      `SELECT bt.source_id AS payment_id, count(DISTINCT j.id) AS journals
         FROM ledger.journals j JOIN ledger.balance_transactions bt ON bt.journal_id = j.id
        WHERE j.kind = 'payment' AND bt.business_id = ANY($1) GROUP BY 1`,
      [businessIds],
    );
    const unbalancedJournals = await client.query<{ journal_id: string; sum: string }>(
      `SELECT journal_id, sum(amount_centavos) AS sum FROM ledger.entries GROUP BY 1 HAVING sum(amount_centavos) <> 0`,
    );
    const payoutJournals = await client.query<Observed['payoutJournals'][number]>(
      `SELECT p.id AS payout_id, p.business_id, p.amount_centavos, p.status,
              (SELECT a.status FROM pix_adapter.payouts a WHERE a.payout_id = p.id) AS adapter_status,
              count(*) FILTER (WHERE j.cause_key = 'payout:' || p.id || ':requested')::int AS requested,
              count(*) FILTER (WHERE j.cause_key = 'payout:' || p.id || ':paid')::int AS paid,
              count(*) FILTER (WHERE j.cause_key = 'payout:' || p.id || ':failed')::int AS failed
         FROM ledger.payouts p
         LEFT JOIN ledger.journals j ON j.cause_key IN
           ('payout:' || p.id || ':requested', 'payout:' || p.id || ':paid', 'payout:' || p.id || ':failed')
        WHERE p.business_id = ANY($1)
        GROUP BY p.id, p.business_id, p.amount_centavos, p.status`,
      [businessIds],
    );
    // A reserved refund's journals: `reserve:<id>`, then `release:<id>` (failed) or one of kind refund with its balance
    // transaction (succeeded).
    const refunds = await client.query<Observed['refunds'][number]>(
      `SELECT r.id AS refund_id, r.payment_id, r.business_id, r.amount_centavos, r.status,
              (SELECT status FROM ledger.reservations WHERE id = r.id) AS reservation_status,
              (SELECT count(*) FROM ledger.journals WHERE cause_key = 'reserve:' || r.id)::int AS reserved,
              (SELECT count(*) FROM ledger.journals WHERE cause_key = 'release:' || r.id)::int AS released,
              (SELECT count(*) FROM ledger.balance_transactions WHERE type = 'refund' AND source_id = r.id)::int
                AS refunded
         FROM payment.refunds r WHERE r.business_id = ANY($1)`,
      [businessIds],
    );
    // A business's money is credited (negative) to its own accounts: its balance is minus the sum of those entries.
    const books = await client.query<BookRow>(
      `SELECT b.id AS business_id,
              (SELECT available_centavos + pending_centavos + reserved_centavos + blocked_centavos
                 FROM ledger.balances WHERE business_id = b.id) AS balance,
              (SELECT -sum(amount_centavos) FROM ledger.entries WHERE business_id = b.id) AS entries,
              (SELECT sum(net_centavos) FROM ledger.balance_transactions WHERE business_id = b.id) AS transactions,
              (SELECT json_agg(json_build_object('account', part.account, 'balance', part.balance::text,
                        'entries', (SELECT (-sum(amount_centavos))::text FROM ledger.entries
                                     WHERE business_id = b.id AND account = part.account)))
                 FROM ledger.balances bal,
                      LATERAL (VALUES ('available', bal.available_centavos), ('pending', bal.pending_centavos),
                                      ('reserved', bal.reserved_centavos), ('blocked', bal.blocked_centavos))
                        AS part(account, balance)
                WHERE bal.business_id = b.id) AS parts,
              (SELECT sum(remaining_centavos) FROM ledger.settlements
                WHERE business_id = b.id AND settled_at IS NULL) AS unsettled,
              (SELECT pending_centavos FROM ledger.balances WHERE business_id = b.id) AS pending
         FROM unnest($1::text[]) AS b(id)`,
      [businessIds],
    );
    const heldFunds = await client.query<HeldFundsRow>(
      `SELECT rf.funds_id, rf.payment_id, rf.returned_by, rf.returned_at IS NOT NULL AS returned,
              rf.assigned_at IS NOT NULL AS assigned, f.money_key, f.status, f.amount_centavos,
              f.closed_business_id,
              (SELECT count(*) FROM ledger.journals WHERE cause_key = 'funds:received:' || f.money_key)::int
                AS received,
              (SELECT count(*) FROM ledger.journals WHERE cause_key = 'funds:out:' || f.money_key)::int AS out,
              (SELECT (-sum(e.amount_centavos))::text FROM ledger.entries e JOIN ledger.journals j ON j.id = e.journal_id
                WHERE j.cause_key = 'funds:out:' || f.money_key AND e.account = 'fee_revenue') AS fee_centavos,
              (SELECT count(*) FROM pix_adapter.pix_refunds d WHERE d.funds_id = rf.funds_id AND d.status = 'succeeded')::int
                AS devolucoes
         FROM payment.received_funds rf LEFT JOIN ledger.suspense_funds f ON f.funds_id = rf.funds_id
        WHERE rf.payment_id IN (SELECT id FROM payment.payments WHERE business_id = ANY($1))`,
      [businessIds],
    );
    const adjustments = await client.query<Observed['adjustments'][number]>(
      `SELECT a.id, a.business_id, a.amount_centavos, a.idempotency_key,
              (SELECT count(*) FROM ledger.journals j WHERE j.cause_key = 'adjustment:' || a.id)::int AS journals,
              (SELECT count(*) FROM ledger.balance_transactions bt
                WHERE bt.type = 'adjustment' AND bt.source_id = a.id)::int AS transactions
         FROM ledger.adjustments a WHERE a.business_id = ANY($1)`,
      [businessIds],
    );
    const parkedQueues = (await sources.broker.queueDepths()).filter(
      (q) => q.name.endsWith('.parking') && q.messages > 0,
    );
    return {
      payments: new Map(payments.rows.map((row) => [row.id, row])),
      subscriptions: await checkSubscriptions(client, sources.load.subscriptions),
      // Only a load that made subscriptions has any (an older release's payment service has no such table).
      subscriptionOwners: new Map(
        sources.load.subscriptions.length === 0
          ? []
          : (
              await client.query<{ id: string; business_id: string }>(
                'SELECT id, business_id FROM payment.subscriptions WHERE business_id = ANY($1)',
                [businessIds],
              )
            ).rows.map((row) => [row.id, row]),
      ),
      duplicateKeys: duplicateKeys.rows,
      confirmedEvents: confirmedEvents.rows,
      publicEvents,
      unsentOutboxRows,
      parkedQueues,
      paymentJournals: new Map(paymentJournals.rows.map((row) => [row.payment_id, Number(row.journals)])),
      unbalancedJournals: unbalancedJournals.rows,
      payoutJournals: payoutJournals.rows,
      refunds: refunds.rows,
      heldFunds: heldFunds.rows,
      adjustments: adjustments.rows,
      books: books.rows,
    };
  } finally {
    await client.end();
  }
}

const signatureOf = (secret: string, body: string): string =>
  createHmac('sha256', secret).update(body).digest('hex');

/** The fields of a delivery's body the checks read (`{ id, type, business_id, data: { payment_id | payout_id } }`). */
interface DeliveryBody {
  id?: unknown;
  business_id?: unknown;
  data?: { payment_id?: unknown; payout_id?: unknown; subscription_id?: unknown };
}

const bodyOf = (delivery: ReceivedDelivery): DeliveryBody => {
  try {
    return JSON.parse(delivery.body) as DeliveryBody;
  } catch {
    return {};
  }
};

/**
 * The issue's invariants after a run under faults, each with its violations (empty when it holds), and the figures
 * of the run. Violations about a payment name the faults around its lifetime.
 */
export async function checkInvariants(sources: InvariantSources): Promise<InvariantReport> {
  const { load, receiver, webhooks, timeline } = sources;
  // What the receiver had taken before the database is read: every event it names was committed before it was sent,
  // so its payment, payout or subscription is in what is read next. Read the other way round, a subscription's cycle
  // opened during the reads could arrive before them and look like another business's payment.
  const deliveries = [...receiver.deliveries];
  const observed = await observe(sources);
  const around = (p: CreatedPayment) =>
    timeline.describe(p.createdAt, (p.paidRequestedAt ?? p.createdAt) + 5_000);
  const paidPayments = [...observed.payments.values()].filter((p) => p.status === 'paid');
  const confirmedByPayment = new Map<string, ConfirmedEventRow[]>();
  for (const event of observed.confirmedEvents)
    confirmedByPayment.set(event.payment_id, [...(confirmedByPayment.get(event.payment_id) ?? []), event]);
  const webhookByPath = new Map(webhooks.map((w) => [w.path, w]));
  const createdById = new Map(load.created.map((p) => [p.paymentId, p]));
  const payoutsById = new Map(observed.payoutJournals.map((p) => [p.payout_id, p]));
  const refundsById = new Map(observed.refunds.map((r) => [r.refund_id, r]));
  const heldFundsById = new Map(observed.heldFunds.map((f) => [f.funds_id, f]));
  const adjustmentsById = new Map(observed.adjustments.map((a) => [a.id, a]));
  const adjustmentsByKey = new Map<string, number>();
  for (const { idempotency_key: key } of observed.adjustments)
    if (key !== null) adjustmentsByKey.set(key, (adjustmentsByKey.get(key) ?? 0) + 1);
  const accepted = deliveries.filter((d) => typeof d.answer === 'number' && d.answer < 300);
  const acceptedEventIds = accepted.map((d) => `${d.path} ${String(bodyOf(d).id)}`);
  const acceptedEvents = new Set(acceptedEventIds);

  const invariants: Invariant[] = [
    {
      name: invariantNames.created,
      violations: load.created.flatMap((p) => {
        const row = observed.payments.get(p.paymentId);
        if (!row) return [`${p.paymentId} (${p.method}) is missing; ${around(p)}`];
        const wrong =
          Number(row.amount_centavos) !== p.amountCentavos ||
          row.business_id !== p.business.businessId ||
          row.method !== p.method;
        return wrong
          ? [
              `${p.paymentId}: stored ${row.amount_centavos} ${row.method} for ${row.business_id}, ` +
                `created ${p.amountCentavos} ${p.method} for ${p.business.businessId}; ${around(p)}`,
            ]
          : [];
      }),
    },
    {
      name: invariantNames.onePerKey,
      violations: [
        ...observed.duplicateKeys.map((d) => `key ${d.load_key} made payments ${d.ids.join(', ')}`),
        ...[...load.idsByKey]
          .filter(([, ids]) => ids.size > 1)
          .map(([key, ids]) => `key ${key} was answered with payments ${[...ids].join(', ')}`),
      ],
    },
    {
      name: invariantNames.paid,
      violations: load.created
        .filter((p) => p.paidRequestedAt !== undefined)
        .flatMap((p) => {
          const status = observed.payments.get(p.paymentId)?.status ?? 'missing';
          return status === 'paid' ? [] : [`${p.paymentId} (${p.method}) is ${status}; ${around(p)}`];
        }),
    },
    {
      // The load neither pays nor cancels these: any status but an open one (a PIX is `processing` from its creation,
      // a crypto payment `pending`), or expired past the shortest validity a long soak may outlive, was made up by a
      // fault.
      name: invariantNames.unpaidOpen,
      violations: load.created
        .filter((p) => p.paidRequestedAt === undefined && p.suspense !== 'late')
        .flatMap((p) => {
          const status = observed.payments.get(p.paymentId)?.status ?? 'missing';
          const mayHaveExpired = Date.now() - p.createdAt > SHORTEST_VALIDITY_MS;
          return (openPaymentStatuses as readonly string[]).includes(status) ||
            (status === 'expired' && mayHaveExpired)
            ? []
            : [`${p.paymentId} (${p.method}) is ${status}; ${around(p)}`];
        }),
    },
    {
      name: invariantNames.oneConfirmation,
      violations: [
        ...paidPayments.flatMap((p) => {
          const count = confirmedByPayment.get(p.id)?.length ?? 0;
          const created = createdById.get(p.id);
          return count === 1
            ? []
            : [`${p.id} (${p.method}, paid) has ${count}${created ? `; ${around(created)}` : ''}`];
        }),
        ...[...confirmedByPayment.keys()]
          .filter((id) => observed.payments.get(id)?.status !== 'paid' && observed.payments.has(id))
          .map((id) => `${id} is ${observed.payments.get(id)?.status} but was confirmed`),
      ],
    },
    {
      name: invariantNames.delivered,
      violations: observed.confirmedEvents
        .filter((e) => observed.payments.has(e.payment_id))
        .flatMap((e) => {
          const own = webhooks.find((w) => w.business.businessId === e.business_id);
          if (!own) return [`${e.event_id} names business ${e.business_id}, which has no webhook`];
          if (acceptedEvents.has(`${own.path} ${e.event_id}`)) return [];
          const created = createdById.get(e.payment_id);
          return [
            `${e.event_id} (payment ${e.payment_id}) never accepted by ${own.path}` +
              (created ? `; ${around(created)}` : ''),
          ];
        }),
    },
    {
      // The broker's road and the dispatcher's reading of the owners' event logs together: a lost message still
      // arrives (docs/adr/0040-webhook-event-log-reconciliation.md).
      name: invariantNames.everyChangeDelivered,
      violations: observed.publicEvents.flatMap((e) =>
        webhooks
          .filter((w) => w.business.businessId === e.business_id && w.events.includes(e.type))
          .filter((w) => !acceptedEvents.has(`${w.path} ${e.event_id}`))
          .map((w) => {
            const created = createdById.get(e.subject);
            return (
              `${e.event_id} (${e.type} of ${e.subject}, in the ${e.log} log) never accepted by ${w.path}` +
              (created ? `; ${around(created)}` : '')
            );
          }),
      ),
    },
    {
      name: invariantNames.signed,
      violations: deliveries.flatMap((d) => {
        const webhook = webhookByPath.get(d.path);
        if (!webhook) return [`delivery to unknown path ${d.path}`];
        const body = bodyOf(d);
        const problems: string[] = [];
        if (d.headers['x-service-signature'] !== signatureOf(webhook.secret, d.body))
          problems.push(`${String(body.id)} to ${d.path}: x-service-signature does not match`);
        // What the event is about: a payment (its own events, its refunds'), a payout or a subscription.
        const [subject, owner] =
          body.data?.payout_id !== undefined
            ? [`payout ${String(body.data.payout_id)}`, payoutsById.get(String(body.data.payout_id))]
            : body.data?.subscription_id !== undefined && body.data.payment_id === undefined
              ? [
                  `subscription ${String(body.data.subscription_id)}`,
                  observed.subscriptionOwners.get(String(body.data.subscription_id)),
                ]
              : [
                  `payment ${String(body.data?.payment_id)}`,
                  observed.payments.get(String(body.data?.payment_id)),
                ];
        if (
          body.business_id !== webhook.business.businessId ||
          owner?.business_id !== webhook.business.businessId
        )
          problems.push(
            `${String(body.id)} (${subject} of ${owner?.business_id}) ` +
              `sent to ${d.path} of ${webhook.business.businessId}`,
          );
        return problems;
      }),
    },
    {
      name: invariantNames.oneJournal,
      violations: [
        ...paidPayments.flatMap((p) => {
          const count = observed.paymentJournals.get(p.id) ?? 0;
          const created = createdById.get(p.id);
          return count === 1
            ? []
            : [`${p.id} (${p.method}, paid) has ${count} journals${created ? `; ${around(created)}` : ''}`];
        }),
        ...[...observed.paymentJournals.keys()]
          .filter((id) => observed.payments.get(id)?.status !== 'paid')
          .map((id) => `${id} is ${observed.payments.get(id)?.status ?? 'missing'} but has a journal`),
      ],
    },
    {
      name: invariantNames.onePayoutJournal,
      violations: observed.payoutJournals.flatMap((p) => {
        const expected = {
          requested: 1,
          paid: p.status === 'paid' ? 1 : 0,
          failed: p.status === 'failed' ? 1 : 0,
        };
        return p.requested === expected.requested && p.paid === expected.paid && p.failed === expected.failed
          ? []
          : [
              `${p.payout_id} (${p.status}) has journals requested ${p.requested}, paid ${p.paid}, ` +
                `failed ${p.failed}`,
            ];
      }),
    },
    {
      name: invariantNames.payoutsSettled,
      violations: [
        ...load.payouts.flatMap((p) => {
          const row = payoutsById.get(p.payoutId);
          const during = timeline.describe(p.createdAt - 2_000, p.createdAt + 5_000);
          if (!row) return [`${p.payoutId} is missing; ${during}`];
          if (Number(row.amount_centavos) !== p.amountCentavos || row.business_id !== p.business.businessId)
            return [
              `${p.payoutId}: stored ${row.amount_centavos} for ${row.business_id}, asked ${p.amountCentavos} ` +
                `for ${p.business.businessId}; ${during}`,
            ];
          return row.status === row.adapter_status && (row.status === 'paid' || row.status === 'failed')
            ? []
            : [`${p.payoutId} is ${row.status} (the PIX adapter's send: ${row.adapter_status}); ${during}`];
        }),
        ...[...load.payoutIdsByKey]
          .filter(([, ids]) => ids.size > 1)
          .map(([key, ids]) => `key ${key} was answered with payouts ${[...ids].join(', ')}`),
      ],
    },
    {
      name: invariantNames.oneRefundJournal,
      violations: observed.refunds.flatMap((r) => {
        const expected =
          r.status === 'succeeded'
            ? { reserved: 1, released: 0, refunded: 1, reservation: ['spent'] }
            : r.status === 'failed'
              ? { reserved: 1, released: 1, refunded: 0, reservation: ['released'] }
              : { reserved: 1, released: 0, refunded: 0, reservation: ['held', 'confirmed'] };
        return r.reserved === expected.reserved &&
          r.released === expected.released &&
          r.refunded === expected.refunded &&
          expected.reservation.includes(r.reservation_status ?? 'missing')
          ? []
          : [
              `${r.refund_id} (${r.status}) has journals reserved ${r.reserved}, released ${r.released}, refunded ` +
                `${r.refunded}; its reservation is ${r.reservation_status ?? 'missing'}`,
            ];
      }),
    },
    {
      name: invariantNames.refundsSettled,
      violations: [
        ...load.refunds.flatMap((r) => {
          const row = refundsById.get(r.refundId);
          const during = timeline.describe(r.createdAt - 2_000, r.createdAt + 5_000);
          if (!row) return [`${r.refundId} is missing; ${during}`];
          if (
            row.payment_id !== r.paymentId ||
            row.business_id !== r.business.businessId ||
            (r.amountCentavos !== null && Number(row.amount_centavos) !== r.amountCentavos)
          )
            return [
              `${r.refundId}: stored ${row.amount_centavos} of ${row.payment_id} for ${row.business_id}, asked ` +
                `${r.amountCentavos ?? 'all'} of ${r.paymentId} for ${r.business.businessId}; ${during}`,
            ];
          return row.status === 'succeeded' || row.status === 'failed'
            ? []
            : [`${r.refundId} is ${row.status}; ${during}`];
        }),
        ...[...load.refundIdsByKey]
          .filter(([, ids]) => ids.size > 1)
          .map(([key, ids]) => `key ${key} was answered with refunds ${[...ids].join(', ')}`),
      ],
    },
    {
      name: invariantNames.oneSuspenseJournal,
      violations: observed.heldFunds.flatMap((f) => suspenseJournalViolations(f)),
    },
    {
      name: invariantNames.heldFundsSettled,
      violations: load.settledHeldFunds.flatMap((settled) => {
        const row = heldFundsById.get(settled.fundsId);
        const during = timeline.describe(settled.at - 5_000, settled.at + 5_000);
        if (!row) return [`${settled.fundsId} (${settled.action}) is missing; ${during}`];
        return heldFundsViolations(settled.action, row).map((v) => `${v}; ${during}`);
      }),
    },
    {
      name: invariantNames.oneAdjustment,
      violations: [
        ...load.adjustments.flatMap((a) => {
          const row = adjustmentsById.get(a.adjustmentId);
          const during = timeline.describe(a.createdAt - 5_000, a.createdAt + 1_000);
          if (!row) return [`${a.adjustmentId} is missing; ${during}`];
          return row.business_id === a.business.businessId &&
            Number(row.amount_centavos) === a.amountCentavos &&
            row.idempotency_key === a.idempotencyKey &&
            row.journals === 1 &&
            row.transactions === 1
            ? []
            : [
                `${a.adjustmentId}: ${row.amount_centavos} for ${row.business_id} under ${row.idempotency_key} with ` +
                  `${row.journals} journals and ${row.transactions} balance transactions, asked ${a.amountCentavos} ` +
                  `for ${a.business.businessId} under ${a.idempotencyKey}; ${during}`,
              ];
        }),
        ...[...load.adjustmentIdsByKey]
          .filter(([, ids]) => ids.size > 1)
          .map(([key, ids]) => `key ${key} was answered with adjustments ${[...ids].join(', ')}`),
        ...[...adjustmentsByKey]
          .filter(([, n]) => n > 1)
          .map(([key, n]) => `key ${key} has ${n} adjustments`),
      ],
    },
    {
      name: invariantNames.booksBalance,
      violations: [
        ...observed.unbalancedJournals.map((j) => `journal ${j.journal_id} sums to ${j.sum}`),
        ...observed.books.flatMap((book) => {
          const paidNet = paidPayments
            .filter((p) => p.business_id === book.business_id)
            .reduce((sum, p) => sum + BigInt(p.amount_centavos) - BigInt(p.fee_centavos), 0n);
          const paidOut = observed.payoutJournals
            .filter((p) => p.business_id === book.business_id && p.status === 'paid')
            .reduce((sum, p) => sum + BigInt(p.amount_centavos), 0n);
          const refunded = observed.refunds
            .filter((r) => r.business_id === book.business_id && r.status === 'succeeded')
            .reduce((sum, r) => sum + BigInt(r.amount_centavos), 0n);
          const credited = suspenseCreditOf(book.business_id, observed.heldFunds);
          const adjusted = observed.adjustments
            .filter((a) => a.business_id === book.business_id)
            .reduce((sum, a) => sum + BigInt(a.amount_centavos), 0n);
          const net = paidNet + credited + adjusted - paidOut - refunded;
          const figures = [book.balance, book.entries, book.transactions].map((v) => BigInt(v ?? 0));
          const problems = figures.every((figure) => figure === net)
            ? []
            : [
                `${book.business_id}: balance ${figures[0]}, entries ${figures[1]}, balance transactions ` +
                  `${figures[2]}, paid net ${paidNet} plus credited from suspense ${credited} and adjusted ` +
                  `${adjusted}, less paid out ${paidOut} and refunded ${refunded} (centavos)`,
              ];
          for (const part of book.parts ?? [])
            if (BigInt(part.balance) !== BigInt(part.entries ?? 0))
              problems.push(
                `${book.business_id}: ${part.account} ${part.balance}, its entries ${part.entries ?? 0}`,
              );
          if (BigInt(book.unsettled ?? 0) !== BigInt(book.pending ?? 0))
            problems.push(
              `${book.business_id}: pending ${book.pending ?? 0}, unsettled remainders ${book.unsettled ?? 0}`,
            );
          return problems;
        }),
      ],
    },
    {
      name: invariantNames.noParked,
      violations: observed.parkedQueues.map((q) => `${q.name} holds ${q.messages}`),
    },
    {
      name: invariantNames.noUnsent,
      violations: observed.unsentOutboxRows.map((r) => `${r.schema}.outbox: ${r.count} × ${r.name}`),
    },
    {
      name: invariantNames.no500,
      violations: load.failures.map(
        (f) => `${f.request}: ${f.outcome}; ${timeline.describe(f.at - 1000, f.at)}`,
      ),
    },
    {
      name: invariantNames.validAnswered,
      violations: load.unexpected.map(
        (u) => `${u.request}: ${u.outcome}; ${timeline.describe(u.at - 1000, u.at)}`,
      ),
    },
    {
      name: invariantNames.shortRetries,
      violations: load.retried.flatMap((r) => {
        const allowedMs =
          timeline.clientFaultMs(Math.min(r.waitsSince ?? r.startedAt, r.startedAt), r.endedAt) +
          RETRY_ALLOWANCE_MS;
        const waitedMs = r.endedAt - r.startedAt;
        return waitedMs <= allowedMs
          ? []
          : [
              `${r.request} waited ${(waitedMs / 1000).toFixed(1)} s over ${r.attempts} attempts ` +
                `(allowed ${(allowedMs / 1000).toFixed(1)} s); last fault: ${r.lastFault.slice(0, 200)}; ` +
                timeline.describe(r.startedAt, r.endedAt),
            ];
      }),
    },
    ...observed.subscriptions.invariants,
  ];

  const deliveredPerEvent = new Map<string, number>();
  for (const id of acceptedEventIds) deliveredPerEvent.set(id, (deliveredPerEvent.get(id) ?? 0) + 1);
  const figures: Figures = {
    payments: load.created.length,
    pix: load.created.filter((p) => p.method === 'pix').length,
    crypto: load.created.filter((p) => p.method === 'crypto').length,
    askedToBePaid: load.created.filter((p) => p.paidRequestedAt !== undefined).length,
    paid: paidPayments.length,
    clientRequests: load.requests,
    clientRetries: load.retries,
    clientServiceUnavailable: load.serviceUnavailable,
    longestRetryMs: load.longestRetryMs,
    deliveries: accepted.length,
    deliveredEvents: deliveredPerEvent.size,
    duplicateDeliveries: [...deliveredPerEvent.values()].reduce((sum, n) => sum + n - 1, 0),
    failedDeliveryAttempts: deliveries.length - accepted.length,
    payouts: load.payouts.length,
    payoutsPaid: observed.payoutJournals.filter((p) => p.status === 'paid').length,
    payoutsFailed: observed.payoutJournals.filter((p) => p.status === 'failed').length,
    payoutsRefusedForBalance: load.payoutsRefusedForBalance,
    refunds: load.refunds.length,
    refundsSucceeded: observed.refunds.filter((r) => r.status === 'succeeded').length,
    refundsFailed: observed.refunds.filter((r) => r.status === 'failed').length,
    refundsRefusedForBalance: load.refundsRefusedForBalance,
    heldFunds: observed.heldFunds.length,
    heldFundsReturned: load.settledHeldFunds.filter(
      (f) => f.action === 'return' && heldFundsById.get(f.fundsId)?.status === 'returned',
    ).length,
    heldFundsAssigned: load.settledHeldFunds.filter(
      (f) => f.action === 'assign' && heldFundsById.get(f.fundsId)?.status === 'assigned',
    ).length,
    adjustments: load.adjustments.length,
    subscriptions: observed.subscriptions.figures,
  };
  return { invariants, figures };
}

/** How one received funds' journals break the rule: one funds:received, a funds:out once (and only once) it left. */
export function suspenseJournalViolations(f: HeldFundsRow): string[] {
  if (f.money_key === null) return [`${f.funds_id} (payment ${f.payment_id}) is not in the books`];
  const left = f.status === 'returned' || f.status === 'assigned';
  return f.received === 1 && f.out === (left ? 1 : 0)
    ? []
    : [
        `${f.funds_id} (${f.money_key}, ${f.status}) has ${f.received} funds:received and ${f.out} funds:out ` +
          'journals',
      ];
}

/** How received funds the operator returned or assigned fall short of ending so, once, everywhere. */
export function heldFundsViolations(action: 'return' | 'assign', f: HeldFundsRow): string[] {
  const where =
    `${f.funds_id}: the payment service has it ${f.assigned ? 'assigned' : f.returned ? `returned by ${f.returned_by}` : 'not out'}, ` +
    `the books ${f.status ?? 'missing'} with ${f.out} funds:out journals`;
  if (action === 'assign')
    return f.assigned && !f.returned && f.status === 'assigned' && f.out === 1
      ? []
      : [`assigned by the operator, but ${where}`];
  return f.returned &&
    f.returned_by === 'operator' &&
    !f.assigned &&
    f.status === 'returned' &&
    f.out === 1 &&
    f.devolucoes === 1
    ? []
    : [`returned by the operator, but ${where}, and ${f.devolucoes} devoluções succeeded`];
}

/**
 * What money out of suspense credited a business: each received funds the books closed for it (assigned, or returned
 * by hand), its amount less the fee its funds:out journal took, as a payment of its rail would be credited.
 */
export function suspenseCreditOf(businessId: string, heldFunds: HeldFundsRow[]): bigint {
  return heldFunds
    .filter((f) => f.closed_business_id === businessId && f.out > 0)
    .reduce((sum, f) => sum + BigInt(f.amount_centavos ?? 0) - BigInt(f.fee_centavos ?? 0), 0n);
}

/** The type and parking reason of every parked message (taken off its queue), as evidence for a report. */
export async function describeParkedMessages(brokerUrl: string, queues: string[]): Promise<string[]> {
  const connection = await amqp.connect(brokerUrl);
  try {
    const channel = await connection.createChannel();
    const described: string[] = [];
    for (const queue of queues) {
      for (;;) {
        const msg = await channel.get(queue, { noAck: true });
        if (!msg) break;
        described.push(
          `${queue}: ${String(msg.properties.type)} ${String(msg.properties.headers?.['x-parked-reason'] ?? '')}`,
        );
      }
    }
    return described;
  } finally {
    await connection.close();
  }
}

/** The report as text: each invariant with its first violations, then the figures. */
export function formatReport(
  report: InvariantReport,
  timeline: FaultTimeline,
  parked: string[] = [],
): string {
  const lines = ['faults injected:', ...timeline.lines().map((l) => `  ${l}`), 'invariants:'];
  for (const invariant of report.invariants) {
    const n = invariant.violations.length;
    lines.push(`  ${n === 0 ? 'ok  ' : 'FAIL'} ${invariant.name}${n === 0 ? '' : ` (${n} violations)`}`);
    for (const violation of invariant.violations.slice(0, 15)) lines.push(`         - ${violation}`);
    if (n > 15) lines.push(`         ... and ${n - 15} more`);
  }
  if (parked.length > 0) lines.push('parked messages:', ...parked.slice(0, 20).map((p) => `  ${p}`));
  const f = report.figures;
  lines.push(
    'figures:',
    `  payments created: ${f.payments} (pix ${f.pix}, crypto ${f.crypto}); asked to be paid ${f.askedToBePaid}; paid ${f.paid}`,
    `  client requests: ${f.clientRequests}; retries ${f.clientRetries} (503s ${f.clientServiceUnavailable}); longest retry ${(f.longestRetryMs / 1000).toFixed(1)} s`,
    `  webhook deliveries accepted: ${f.deliveries} for ${f.deliveredEvents} events; duplicates ${f.duplicateDeliveries}; failed attempts ${f.failedDeliveryAttempts}`,
    `  payouts created: ${f.payouts}; paid ${f.payoutsPaid}, failed ${f.payoutsFailed}; refused for want of balance ${f.payoutsRefusedForBalance}`,
    `  refunds created: ${f.refunds}; succeeded ${f.refundsSucceeded}, failed ${f.refundsFailed}; refused for want of balance ${f.refundsRefusedForBalance}`,
    `  money held in suspense: ${f.heldFunds}; returned by the operator through the rail ${f.heldFundsReturned}, assigned ${f.heldFundsAssigned}`,
    `  adjustments made: ${f.adjustments}`,
    `  subscriptions: ${f.subscriptions.subscriptions}; cycles paid ${f.subscriptions.cyclesPaid}, failed ` +
      `${f.subscriptions.cyclesFailed}; cancels raced with a debit: cycle paid ${f.subscriptions.racedCancelsPaid}, ` +
      `debit held as late funds ${f.subscriptions.racedCancelsHeld}, not charged ` +
      `${f.subscriptions.racedCancelsNotCharged}`,
  );
  return lines.join('\n');
}
