import type {
  BalanceTransactionStatus,
  BalanceTransactionType,
  PaymentEventPayload,
  PaymentMethod,
  RefundEventPayload,
} from '@gateway/contracts';
import { holdingAccount, isBusinessAccount, type Account, type BusinessAccount } from './accounts';

/**
 * The posting rules (docs/money-model.md#posting-rules): what one money event writes to the books. Pure: the caller
 * reads what a rule needs (a business's balance, a payment's holding account), then writes the posting in one
 * transaction keyed by `causeKey`.
 *
 * Signs: a debit is positive, a credit negative, and every journal sums to zero. A business's balances are what the
 * platform owes it (liabilities), so a credit to `pending` raises the business's pending balance.
 */
export interface JournalLine {
  account: Account;
  /** The business whose balance the line moves; null for the platform's accounts. */
  businessId: string | null;
  amountCentavos: number;
}

/** What the journal does to each of the business's four balances (positive: the business is owed more). */
export type BalanceDeltas = Record<BusinessAccount, number>;

export interface NewBalanceTransaction {
  type: BalanceTransactionType;
  sourceId: string;
  /** Signed gross. */
  amountCentavos: number;
  feeCentavos: number;
  /** Signed, `amountCentavos - feeCentavos`. */
  netCentavos: number;
  status: BalanceTransactionStatus;
  availableOn: Date;
  createdAt: Date;
  description: string;
}

/** A paid payment's net waiting in `pending` until `availableOn`. */
export interface DueSettlement {
  paymentId: string;
  businessId: string;
  netCentavos: number;
  availableOn: Date;
  /** Where the payment's money is held; a refund of it returns money from there. */
  holdingAccount: Account;
}

/** What a journal records: a paid payment, its settlement, a refund paid out, a reservation made or released. */
export type PostingKind = 'payment' | 'settlement' | 'refund' | 'reservation' | 'release';

export interface Posting {
  /** Unique across the ledger: a second posting under the same key is a redelivery and writes nothing. */
  causeKey: string;
  kind: PostingKind;
  businessId: string;
  /** The journal's entries, none of zero; they sum to zero. */
  lines: JournalLine[];
  deltas: BalanceDeltas;
  balanceTransaction: NewBalanceTransaction | null;
  settlement: DueSettlement | null;
}

/** How long after payment each method's net stays pending (SETTLEMENT_DELAY_*_SECONDS). */
export type SettlementDelays = Record<PaymentMethod, number>;

export function journalSum(lines: readonly JournalLine[]): number {
  return lines.reduce((sum, line) => sum + line.amountCentavos, 0);
}

/** The change of each business balance: a credit (negative entry) to a business account raises it. */
export function balanceDeltas(lines: readonly JournalLine[]): BalanceDeltas {
  const deltas: BalanceDeltas = { pending: 0, available: 0, reserved: 0, blocked: 0 };
  for (const line of lines) if (isBusinessAccount(line.account)) deltas[line.account] -= line.amountCentavos;
  return deltas;
}

function posting(parts: Omit<Posting, 'lines' | 'deltas'> & { lines: JournalLine[] }): Posting {
  const lines = parts.lines.filter((line) => line.amountCentavos !== 0);
  if (journalSum(lines) !== 0) throw new Error(`unbalanced journal ${parts.causeKey}`);
  return { ...parts, lines, deltas: balanceDeltas(lines) };
}

const methodLabel = (method: PaymentMethod, token: string | null | undefined): string =>
  method === 'pix' ? 'PIX' : `cripto (${token ? token.toUpperCase() : 'token desconhecido'})`;

/**
 * A paid payment (gross G, fee F, net N = G - F): the platform now holds G (`cash_psp`, or the token at the locked
 * quote's BRL cost), owes the business N, pending until the method's settlement delay is over, and earned F.
 */
export function paymentConfirmedPosting(event: PaymentEventPayload, delays: SettlementDelays): Posting {
  const { payment } = event;
  const gross = payment.amount_centavos;
  const fee = payment.fee_centavos;
  const net = gross - fee;
  const paidAt = new Date(event.occurred_at);
  const availableOn = new Date(paidAt.getTime() + delays[payment.method] * 1000);
  const holding = holdingAccount(payment.method, payment.token);
  const businessId = payment.business_id;
  return posting({
    causeKey: event.event_id,
    kind: 'payment',
    businessId,
    lines: [
      { account: holding, businessId: null, amountCentavos: gross },
      { account: 'pending', businessId, amountCentavos: -net },
      { account: 'fee_revenue', businessId: null, amountCentavos: -fee },
    ],
    balanceTransaction: {
      type: 'payment',
      sourceId: payment.payment_id,
      amountCentavos: gross,
      feeCentavos: fee,
      netCentavos: net,
      status: 'pending',
      availableOn,
      createdAt: paidAt,
      description: `Pagamento ${methodLabel(payment.method, payment.token)} ${payment.payment_id}`,
    },
    settlement: {
      paymentId: payment.payment_id,
      businessId,
      netCentavos: net,
      availableOn,
      holdingAccount: holding,
    },
  });
}

/** The key of a payment's settlement journal: one per payment, whoever sweeps it and however often. */
export const settlementCauseKey = (paymentId: string): string => `settle:${paymentId}`;

/** Whether a settlement is due at `now`. */
export const isSettlementDue = (settlement: Pick<DueSettlement, 'availableOn'>, now: Date): boolean =>
  settlement.availableOn.getTime() <= now.getTime();

/**
 * The settlement delay is over: what is left of the payment's net (`remainingCentavos`: the net, less refunds taken
 * from it before) moves from `pending` to `available`. Never more, never another payment's pending money; null when
 * nothing is left (a payment refunded in full before it settled), so no journal is written.
 */
export function settlementPosting(
  settlement: Pick<DueSettlement, 'paymentId' | 'businessId'> & { remainingCentavos: number },
): Posting | null {
  const moved = settlement.remainingCentavos;
  if (moved <= 0) return null;
  const { businessId } = settlement;
  return posting({
    causeKey: settlementCauseKey(settlement.paymentId),
    kind: 'settlement',
    businessId,
    lines: [
      { account: 'pending', businessId, amountCentavos: moved },
      { account: 'available', businessId, amountCentavos: -moved },
    ],
    balanceTransaction: null,
    settlement: null,
  });
}

/**
 * A refund succeeded (R) that reserved nothing: one opened before refunds reserved (docs/money-model.md#refunds). The
 * money left the platform (`cash_psp`, or the token at the payment's cost: the refund's share R/G of the gross G costs
 * R), and the business is owed R less: taken first from what the payment itself still has pending
 * (`pendingOfPayment`, its settlement's remainder; the caller takes it from there too), then from `available`, which
 * may go below zero (the money has already left and the books say so). The fee stays the platform's. Another payment's
 * pending money is never touched, so each settlement moves exactly what its own payment left.
 */
export function refundSucceededPosting(
  event: RefundEventPayload,
  holding: Account,
  pendingOfPayment: number,
): Posting & { fromPendingOfPayment: number } {
  const { refund } = event;
  const amount = refund.amount_centavos;
  const fromPending = Math.min(amount, Math.max(0, pendingOfPayment));
  const fromAvailable = amount - fromPending;
  const businessId = refund.business_id;
  const refundPosting = posting({
    causeKey: event.event_id,
    kind: 'refund',
    businessId,
    lines: [
      { account: 'available', businessId, amountCentavos: fromAvailable },
      { account: 'pending', businessId, amountCentavos: fromPending },
      { account: holding, businessId: null, amountCentavos: -amount },
    ],
    balanceTransaction: refundBalanceTransaction(event),
    settlement: null,
  });
  return { ...refundPosting, fromPendingOfPayment: fromPending };
}

/** The refund's line on the merchant's statement: −R gross and net, no fee (the fee is not returned). */
function refundBalanceTransaction(event: RefundEventPayload): NewBalanceTransaction {
  const { refund } = event;
  const refundedAt = new Date(event.occurred_at);
  return {
    type: 'refund',
    sourceId: refund.refund_id,
    amountCentavos: -refund.amount_centavos,
    feeCentavos: 0,
    netCentavos: -refund.amount_centavos,
    status: 'available',
    availableOn: refundedAt,
    createdAt: refundedAt,
    description: `Reembolso ${refund.refund_id} do pagamento ${refund.payment_id}`,
  };
}

/** One unsettled payment's pending remainder, which a reservation may take from. */
export interface PendingRemainder {
  paymentId: string;
  remainingCentavos: number;
  availableOn: Date;
}

/** One part of a reservation taken from a payment's pending remainder (stored as is, `from_pending`). */
export interface PendingPart {
  payment_id: string;
  centavos: number;
}

/** A refund's reservation: its amount, and where each part of it came from. */
export interface Reservation {
  id: string;
  businessId: string;
  paymentId: string;
  amountCentavos: number;
  fromAvailableCentavos: number;
  fromPending: PendingPart[];
}

/**
 * Where a refund's reservation of `amount` takes the money from (docs/money-model.md#refunds), or null when the
 * business's available + pending does not cover it: first what the refunded payment itself still has pending (`own`,
 * its settlement's remainder: the money being returned is that payment's), then `available` (only what is above
 * zero), then the other payments' pending remainders, the latest due first (what would become available soonest
 * stays on time). Each settlement then moves exactly what is left of its own payment.
 */
export function reservationSources(
  amount: number,
  own: PendingRemainder | null,
  available: number,
  others: readonly PendingRemainder[],
): Pick<Reservation, 'fromAvailableCentavos' | 'fromPending'> | null {
  const fromPending: PendingPart[] = [];
  let rest = amount;
  const take = (remainder: PendingRemainder) => {
    const part = Math.min(rest, Math.max(0, remainder.remainingCentavos));
    if (part > 0) fromPending.push({ payment_id: remainder.paymentId, centavos: part });
    rest -= part;
  };
  if (own) take(own);
  const fromAvailableCentavos = Math.min(rest, Math.max(0, available));
  rest -= fromAvailableCentavos;
  const latestDueFirst = [...others]
    .filter((remainder) => remainder.paymentId !== own?.paymentId)
    .sort((a, b) => b.availableOn.getTime() - a.availableOn.getTime());
  for (const remainder of latestDueFirst) if (rest > 0) take(remainder);
  return rest > 0 ? null : { fromAvailableCentavos, fromPending };
}

const pendingTotal = (parts: readonly PendingPart[]): number =>
  parts.reduce((sum, part) => sum + part.centavos, 0);

/** The key of a reservation's journal and of its release's: one each per refund id. */
export const reservationCauseKey = (reservationId: string): string => `reserve:${reservationId}`;
export const releaseCauseKey = (reservationId: string): string => `release:${reservationId}`;

/**
 * A refund reserves R before anything is sent to a rail: R moves to `reserved` (still the business's, no longer
 * spendable) from where `reservationSources` found it. No balance transaction: the business is owed the same.
 */
export function reservationPosting(reservation: Reservation): Posting {
  const { businessId } = reservation;
  return posting({
    causeKey: reservationCauseKey(reservation.id),
    kind: 'reservation',
    businessId,
    lines: [
      { account: 'available', businessId, amountCentavos: reservation.fromAvailableCentavos },
      { account: 'pending', businessId, amountCentavos: pendingTotal(reservation.fromPending) },
      { account: 'reserved', businessId, amountCentavos: -reservation.amountCentavos },
    ],
    balanceTransaction: null,
    settlement: null,
  });
}

/**
 * Where a released reservation's parts go back: the available part to `available`; each pending part to its payment's
 * remainder while that payment has not settled, to `available` once it has (its money would be available by now).
 */
export function releaseReturns(
  reservation: Pick<Reservation, 'fromAvailableCentavos' | 'fromPending'>,
  unsettledPaymentIds: ReadonlySet<string>,
): { toAvailable: number; toPending: PendingPart[] } {
  const toPending = reservation.fromPending.filter((part) => unsettledPaymentIds.has(part.payment_id));
  const toAvailable =
    reservation.fromAvailableCentavos + pendingTotal(reservation.fromPending) - pendingTotal(toPending);
  return { toAvailable, toPending };
}

/**
 * A reservation given back (the refund failed, or was never opened): `reserved` returns R where `releaseReturns`
 * says. No balance transaction: the business was owed the same all along.
 */
export function releasePosting(
  reservation: Reservation,
  returns: { toAvailable: number; toPending: readonly PendingPart[] },
): Posting {
  const { businessId } = reservation;
  return posting({
    causeKey: releaseCauseKey(reservation.id),
    kind: 'release',
    businessId,
    lines: [
      { account: 'reserved', businessId, amountCentavos: reservation.amountCentavos },
      { account: 'available', businessId, amountCentavos: -returns.toAvailable },
      { account: 'pending', businessId, amountCentavos: -pendingTotal(returns.toPending) },
    ],
    balanceTransaction: null,
    settlement: null,
  });
}

/**
 * A reserved refund succeeded (R): the money left the platform from where the payment's money is held, and the
 * business's `reserved` gives it up; its balance transaction (−R, fee 0) is written now. The fee stays the platform's.
 */
export function reservedRefundSucceededPosting(event: RefundEventPayload, holding: Account): Posting {
  const { refund } = event;
  const businessId = refund.business_id;
  return posting({
    causeKey: event.event_id,
    kind: 'refund',
    businessId,
    lines: [
      { account: 'reserved', businessId, amountCentavos: refund.amount_centavos },
      { account: holding, businessId: null, amountCentavos: -refund.amount_centavos },
    ],
    balanceTransaction: refundBalanceTransaction(event),
    settlement: null,
  });
}
