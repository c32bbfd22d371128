import {
  MANUAL_RETURN,
  type BalanceTransactionStatus,
  type BalanceTransactionType,
  type DisputeEventPayload,
  type FundsAssigned,
  type FundsReceived,
  type FundsReturned,
  type PaymentEventPayload,
  type PaymentMethod,
  type RefundEventPayload,
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
  /** A token line's quantity in base units (signed as its amount), when the posting knows it. */
  quantityBaseUnits?: string | null;
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
  /** When its event happened; the database dates the row itself when it is posted. */
  occurredAt: Date;
  description: string;
}

/** A paid payment's net (or held funds' credited to a business) waiting in `pending` until `availableOn`. */
export interface DueSettlement {
  /** The payment; for money credited out of suspense, its `funds_id` (settlements are keyed by the source). */
  paymentId: string;
  businessId: string;
  netCentavos: number;
  availableOn: Date;
  /** Where the payment's money is held; a refund of it returns money from there. */
  holdingAccount: Account;
}

/** What a journal records: a paid payment, its settlement, a refund paid out, a reservation made or released, a payout,
 * money in suspense, a dispute. */
export type PostingKind =
  | 'payment'
  | 'settlement'
  | 'refund'
  | 'reservation'
  | 'release'
  | 'payout'
  | SuspenseJournalKind
  | 'adjustment';

export interface Posting {
  /** Unique across the ledger: a second posting under the same key is a redelivery and writes nothing. */
  causeKey: string;
  kind: PostingKind;
  businessId: string;
  /** The rail's id of the movement (a PIX txid or devolução id, a Solana Pay reference), when there is one. */
  railReference: string | null;
  /** The journal's entries, none of zero; they sum to zero. */
  lines: JournalLine[];
  deltas: BalanceDeltas;
  balanceTransaction: NewBalanceTransaction | null;
  settlement: DueSettlement | null;
}

/** How long after payment each method's net stays pending (SETTLEMENT_DELAY_PIX, SETTLEMENT_DELAY_CRYPTO, in seconds). */
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

export function posting(
  parts: Omit<Posting, 'lines' | 'deltas' | 'railReference'> & {
    lines: JournalLine[];
    railReference?: string | null;
  },
): Posting {
  const lines = parts.lines.filter((line) => line.amountCentavos !== 0);
  if (journalSum(lines) !== 0) throw new Error(`unbalanced journal ${parts.causeKey}`);
  return { ...parts, railReference: parts.railReference ?? null, lines, deltas: balanceDeltas(lines) };
}

const methodLabel = (method: PaymentMethod, token: string | null | undefined): string =>
  method === 'pix' ? 'PIX' : `cripto (${token ? token.toUpperCase() : 'token desconhecido'})`;

/**
 * A paid payment (gross G: what was paid, its amount but for a due-date payment's; fee F, net N = G - F): the platform now holds G (`cash_psp`, or the token at the locked
 * quote's BRL cost), owes the business N, pending until the method's settlement delay is over, and earned F.
 */
export function paymentConfirmedPosting(event: PaymentEventPayload, delays: SettlementDelays): Posting {
  const { payment } = event;
  // A due-date payment credits what was paid (a fine more, a discount less than its amount; docs/adr/0048).
  const gross = payment.amount_paid_centavos ?? payment.amount_centavos;
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
    railReference: payment.external_id,
    lines: [
      {
        account: holding,
        businessId: null,
        amountCentavos: gross,
        // A token holding counts its quantity too: what the payer was asked for, in base units.
        ...quantity(payment.method === 'crypto' ? payment.amount_base_units : null),
      },
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
      occurredAt: paidAt,
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

/** The key of a direct payment's journal: one per payment, whichever event reports it. */
export const directPaymentCauseKey = (paymentId: string): string => `direct:${paymentId}`;

/**
 * A payment paid into the business's own PSP account (`custody: direct`, gross G, fee F): the money never reaches the
 * platform, so neither G nor a net is booked. The business owes the platform F: `fees_receivable` is debited and
 * `fee_revenue` credited by F. No balance of the business moves (nothing pending or available to pay out), no
 * settlement waits and no balance transaction is written.
 */
export function directPaymentPosting(event: PaymentEventPayload): Posting {
  const { payment } = event;
  const fee = payment.fee_centavos;
  return posting({
    causeKey: directPaymentCauseKey(payment.payment_id),
    kind: 'payment',
    businessId: payment.business_id,
    railReference: payment.external_id,
    lines: [
      { account: 'fees_receivable', businessId: null, amountCentavos: fee },
      { account: 'fee_revenue', businessId: null, amountCentavos: -fee },
    ],
    balanceTransaction: null,
    settlement: null,
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

/** A line's quantity, only where it is known. */
const quantity = (baseUnits: string | null | undefined): Pick<JournalLine, 'quantityBaseUnits'> =>
  baseUnits == null ? {} : { quantityBaseUnits: baseUnits };

/** What a crypto payment's journal put in its token account: its gross (the BRL cost) and the quantity. */
export interface PaymentTokens {
  grossCentavos: number;
  quantityBaseUnits: string;
}

/**
 * The tokens a refund of R centavos returns, as the watcher computes a refund's share of the price it was paid at:
 * floor(quantity × R / G), negative (they leave the holding); null when the payment's quantity is not known.
 */
export function refundedQuantity(paymentTokens: PaymentTokens | null, refundCentavos: number): string | null {
  if (paymentTokens === null || paymentTokens.grossCentavos <= 0) return null;
  const share =
    (BigInt(paymentTokens.quantityBaseUnits) * BigInt(refundCentavos)) / BigInt(paymentTokens.grossCentavos);
  return (-share).toString();
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
  paymentTokens: PaymentTokens | null = null,
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
    railReference: refund.external_id,
    lines: [
      { account: 'available', businessId, amountCentavos: fromAvailable },
      { account: 'pending', businessId, amountCentavos: fromPending },
      {
        account: holding,
        businessId: null,
        amountCentavos: -amount,
        ...quantity(refundedQuantity(paymentTokens, amount)),
      },
    ],
    balanceTransaction: refundBalanceTransaction(event),
    settlement: null,
  });
  return { ...refundPosting, fromPendingOfPayment: fromPending };
}

// Money that belongs to no payment yet (suspense), and disputes (docs/money-model.md#suspense, #disputes).

/** The journals of money in suspense and of disputes. */
export type SuspenseJournalKind =
  'funds_received' | 'funds_returned' | 'funds_assigned' | 'dispute_opened' | 'dispute_closed';

/** A journal between the platform's own accounts only: no business balance moves, no balance transaction. */
export interface PlatformPosting {
  causeKey: string;
  kind: SuspenseJournalKind | 'adjustment';
  businessId: null;
  /** The rail's id of the money it moves in or out (a Pix's endToEndId, a devolução id, a Solana signature). */
  railReference: string | null;
  lines: JournalLine[];
}

export function platformPosting(
  parts: Omit<PlatformPosting, 'businessId' | 'railReference'> & { railReference?: string | null },
): PlatformPosting {
  const lines = parts.lines.filter((line) => line.amountCentavos !== 0);
  if (journalSum(lines) !== 0) throw new Error(`unbalanced journal ${parts.causeKey}`);
  if (lines.some((line) => isBusinessAccount(line.account)))
    throw new Error(`a platform journal moves no business balance: ${parts.causeKey}`);
  return { ...parts, businessId: null, railReference: parts.railReference ?? null, lines };
}

/**
 * The keys of the journals of one sum of money in suspense (its `money_key`, the same for every received-funds record
 * of it): in once, out once (returned or assigned, never both), whatever event or record says so and however often.
 */
export const fundsCauseKey = (moneyKey: string, step: 'received' | 'out'): string =>
  `funds:${step}:${moneyKey}`;

/** The keys of a dispute's journals: opened once, closed once (won or lost, never both). */
export const disputeCauseKey = (disputeId: string, step: 'opened' | 'closed'): string =>
  `dispute:${step}:${disputeId}`;

/**
 * Money came in that belongs to no payment yet (late, excess, partial, unmatched): the platform holds it (`cash_psp`,
 * or the token at the BRL value the event gives: its payment's locked quote within the payment's window, the quote of
 * its arrival outside it) and owes it to nobody yet: `suspense`. Null when its BRL value is unknown (no quote could be
 * had, tokens for a payment the gateway does not know): nothing is booked. The journal names the
 * money at its rail (the Pix's endToEndId, the transaction's signature) and a token line counts its base units, so
 * reconciliation finds it at the PSP and on chain.
 */
export function fundsReceivedPosting(event: FundsReceived): PlatformPosting | null {
  const amount = event.amount_centavos;
  if (amount === null) return null;
  return platformPosting({
    causeKey: fundsCauseKey(event.money_key, 'received'),
    kind: 'funds_received',
    railReference: event.rail_reference ?? null,
    lines: [
      {
        account: holdingAccount(event.rail, event.token),
        businessId: null,
        amountCentavos: amount,
        ...quantity(event.rail === 'pix' ? null : event.amount_base_units),
      },
      { account: 'suspense', businessId: null, amountCentavos: -amount },
    ],
  });
}

/** What the books hold in suspense for one sum of money: its value and where the money is. */
export interface HeldFunds {
  amountCentavos: number;
  holdingAccount: Account;
  /** Tokens: the base units booked in (null for PIX or when not known). */
  amountBaseUnits?: string | null;
}

/** A label of received funds for a statement line. */
const fundsLabel = (fundsId: string, rail: PaymentMethod): string =>
  `Fundos recebidos ${fundsId} (${rail === 'pix' ? 'PIX' : 'cripto'})`;

/**
 * The business money leaving suspense is credited to: the assignment's, or the business that returned it by hand
 * (`manual`); null when it went back to the payer through a rail (a refund, the operator's return: nobody is credited,
 * and the business may be none, for money naming a payment the gateway does not know). The contract never lets a
 * credit name no business; an event that did is refused here rather than credited to nobody.
 */
export function creditedBusiness(event: FundsReturned | FundsAssigned): string | null {
  if ('returned_by' in event && event.returned_by !== MANUAL_RETURN) return null;
  if (event.business_id === null)
    throw new Error(`funds ${event.funds_id}: credited out of suspense to no business`);
  return event.business_id;
}

/**
 * Held funds went back to the payer. By a refund that succeeded: the money left the platform, out of suspense and out
 * of where it was held (`cash_psp` or the token at the value booked). By the business itself (`manual`: it paid the
 * payer back outside the gateway): the platform still holds the money and now owes it to that business, credited as a
 * payment would be (`suspenseCreditPosting`).
 */
export function fundsReturnedPosting(
  event: FundsReturned,
  held: HeldFunds,
  delays: SettlementDelays,
): Posting | PlatformPosting {
  const amount = held.amountCentavos;
  const causeKey = fundsCauseKey(event.money_key, 'out');
  if (creditedBusiness(event) === null)
    return platformPosting({
      causeKey,
      kind: 'funds_returned',
      // The refund's id at the rail: the devolução (or transfer) the money left under, beside the refund's own journal.
      railReference: event.rail_reference ?? null,
      lines: [
        { account: 'suspense', businessId: null, amountCentavos: amount },
        {
          account: held.holdingAccount,
          businessId: null,
          amountCentavos: -amount,
          ...quantity(
            held.holdingAccount === 'cash_psp' || held.amountBaseUnits == null
              ? null
              : (-BigInt(held.amountBaseUnits)).toString(),
          ),
        },
      ],
    });
  return suspenseCreditPosting(event, held, delays);
}

/**
 * Money leaving suspense for a business: returned by hand (`payment.funds.returned.v1`, `manual`) or assigned by the
 * operator (`payment.funds.assigned.v1`). Either way it is credited exactly as a paid payment of its rail would be, so
 * no path turns suspense into more spendable money, sooner or with less fee (docs/adr/0023-suspense-credits.md): the
 * value booked in (A, never more), less the fee the business's fee rule charges on it (F, computed by the payment
 * service, clamped here to A) to `fee_revenue`, the net N = A − F to `pending` until the rail's settlement delay from
 * the event is over, with an `adjustment` balance transaction (amount A, fee F, net N, `pending`, its `available_on`)
 * and a settlement keyed by the funds, which the settlement sweep moves to `available` like a payment's.
 */
export function suspenseCreditPosting(
  event: FundsReturned | FundsAssigned,
  held: HeldFunds,
  delays: SettlementDelays,
): Posting {
  const amount = held.amountCentavos;
  const fee = Math.min(amount, Math.max(0, event.fee_centavos ?? 0));
  const net = amount - fee;
  const at = new Date(event.occurred_at);
  const availableOn = new Date(at.getTime() + delays[event.rail] * 1000);
  const businessId = creditedBusiness(event);
  if (businessId === null) throw new Error(`funds ${event.funds_id}: not a credit to a business`);
  const assigned = !('returned_by' in event);
  return posting({
    causeKey: fundsCauseKey(event.money_key, 'out'),
    kind: assigned ? 'funds_assigned' : 'funds_returned',
    businessId,
    lines: [
      { account: 'suspense', businessId: null, amountCentavos: amount },
      { account: 'pending', businessId, amountCentavos: -net },
      { account: 'fee_revenue', businessId: null, amountCentavos: -fee },
    ],
    balanceTransaction: {
      type: 'adjustment',
      sourceId: event.funds_id,
      amountCentavos: amount,
      feeCentavos: fee,
      netCentavos: net,
      status: 'pending',
      availableOn,
      occurredAt: at,
      description: assigned
        ? `${fundsLabel(event.funds_id, event.rail)} atribuídos pelo operador ao pagamento ${event.payment_id}`
        : `${fundsLabel(event.funds_id, event.rail)} devolvidos por você ao pagador fora do gateway (pagamento ${event.payment_id})`,
    },
    // Keyed by the funds (one credit per sum of money): settled by the sweep as a payment's net is.
    settlement: {
      paymentId: event.funds_id,
      businessId,
      netCentavos: net,
      availableOn,
      holdingAccount: held.holdingAccount,
    },
  });
}

/**
 * A dispute opened (D): the amount moves at once from the business's `available` to `blocked`. Only `available`, which
 * may go below zero (the business owes it): a payment's pending money is its settlement's, and it is the business's
 * money either way. Still the business's: no balance transaction (the sum of its balances does not change).
 */
export function disputeOpenedPosting(event: DisputeEventPayload): Posting {
  const { dispute } = event;
  const amount = dispute.amount_centavos;
  return posting({
    causeKey: disputeCauseKey(dispute.dispute_id, 'opened'),
    kind: 'dispute_opened',
    businessId: dispute.business_id,
    lines: [
      { account: 'available', businessId: dispute.business_id, amountCentavos: amount },
      { account: 'blocked', businessId: dispute.business_id, amountCentavos: -amount },
    ],
    balanceTransaction: null,
    settlement: null,
  });
}

/** A dispute as its opening was posted: whose money it blocked, for which payment, and how much. */
export interface OpenedDispute {
  businessId: string;
  paymentId: string;
  amountCentavos: number;
}

/**
 * Why a closing cannot be posted against the dispute its opening posted, or null when it agrees: it names another
 * business (at the top or in the dispute), another payment or another amount. The closing moves the opening's money
 * back or out, so a wrong or forged producer event must never reach another business's `blocked`.
 */
export function closedDisputeContradiction(event: DisputeEventPayload, opened: OpenedDispute): string | null {
  const { dispute } = event;
  const named = {
    business: [event.business_id, dispute.business_id],
    payment: [dispute.payment_id],
    amount: [dispute.amount_centavos],
  };
  const posted = { business: opened.businessId, payment: opened.paymentId, amount: opened.amountCentavos };
  const differing = (Object.keys(named) as Array<keyof typeof named>).filter((field) =>
    named[field].some((value) => value !== posted[field]),
  );
  return differing.length === 0
    ? null
    : `dispute ${dispute.dispute_id}: its closing names another ${differing.join(', ')} than its opening`;
}

/**
 * A dispute closed, posted against its opening (`opened`: its business, payment and the amount it blocked; never
 * what the closing event names). Won: it goes back from `blocked` to `available`, and a `dispute_won` balance
 * transaction of zero says so on the statement (the business's total did not change). Lost: the payer's bank took it
 * back out of the PSP account (`cash_psp`), so it leaves `blocked` and the business is owed that much less: a
 * `dispute` balance transaction of −D. The fee is not returned, as for a refund.
 */
export function disputeClosedPosting(event: DisputeEventPayload, opened: OpenedDispute): Posting {
  const { dispute } = event;
  const { businessId, paymentId, amountCentavos: amount } = opened;
  const closedAt = new Date(event.occurred_at);
  const won = dispute.status === 'won';
  return posting({
    causeKey: disputeCauseKey(dispute.dispute_id, 'closed'),
    kind: 'dispute_closed',
    businessId,
    lines: [
      { account: 'blocked', businessId, amountCentavos: amount },
      won
        ? { account: 'available', businessId, amountCentavos: -amount }
        : { account: holdingAccount('pix', null), businessId: null, amountCentavos: -amount },
    ],
    balanceTransaction: {
      type: won ? 'dispute_won' : 'dispute',
      sourceId: dispute.dispute_id,
      amountCentavos: won ? 0 : -amount,
      feeCentavos: 0,
      netCentavos: won ? 0 : -amount,
      status: 'available',
      availableOn: closedAt,
      occurredAt: closedAt,
      description: won
        ? `Disputa ${dispute.dispute_id} do pagamento ${paymentId} ganha: valor liberado`
        : `Disputa ${dispute.dispute_id} do pagamento ${paymentId} perdida: valor devolvido ao pagador`,
    },
    settlement: null,
  });
}

// Payouts (docs/money-model.md#payouts).

/** The keys of a payout's journals: its reservation, then its one outcome. */
export const payoutCauseKey = (payoutId: string, step: 'requested' | 'paid' | 'failed'): string =>
  `payout:${payoutId}:${step}`;

/**
 * A payout requested (P): P of the business's `available` is promised to it, `reserved` until the PSP settles it.
 * Still the business's money, so no balance transaction: the balance's total, and its statement, do not change.
 */
export function payoutRequestedPosting(payout: {
  payoutId: string;
  businessId: string;
  amountCentavos: number;
}): Posting {
  const { businessId, amountCentavos: amount } = payout;
  return posting({
    causeKey: payoutCauseKey(payout.payoutId, 'requested'),
    kind: 'payout',
    businessId,
    lines: [
      { account: 'available', businessId, amountCentavos: amount },
      { account: 'reserved', businessId, amountCentavos: -amount },
    ],
    balanceTransaction: null,
    settlement: null,
  });
}

/**
 * A payout settled at the PSP. Paid: the reserved P left the platform's PSP account for the business's own (the
 * platform owes it P less and holds P less), and the statement gets its line, `payout` of -P, no fee. Failed: the
 * money never left, so P is available again and the statement has nothing to say.
 */
export function payoutSettledPosting(
  payout: { payoutId: string; businessId: string; amountCentavos: number },
  outcome: 'paid' | 'failed',
  settledAt: Date,
  endToEndId: string | null = null,
): Posting {
  const { businessId, amountCentavos: amount } = payout;
  const paid = outcome === 'paid';
  return posting({
    causeKey: payoutCauseKey(payout.payoutId, outcome),
    kind: 'payout',
    businessId,
    // Paid: the Pix sent's endToEndId, as the PSP lists it (a failed payout moved no money: nothing to match).
    railReference: paid ? endToEndId : null,
    lines: [
      { account: 'reserved', businessId, amountCentavos: amount },
      paid
        ? { account: 'cash_psp', businessId: null, amountCentavos: -amount }
        : { account: 'available', businessId, amountCentavos: -amount },
    ],
    balanceTransaction: paid
      ? {
          type: 'payout',
          sourceId: payout.payoutId,
          amountCentavos: -amount,
          feeCentavos: 0,
          netCentavos: -amount,
          status: 'available',
          availableOn: settledAt,
          occurredAt: settledAt,
          description: `Saque PIX ${payout.payoutId}`,
        }
      : null,
    settlement: null,
  });
}

// Refund reservations (docs/money-model.md#refunds).

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
    occurredAt: refundedAt,
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
export function reservedRefundSucceededPosting(
  event: RefundEventPayload,
  holding: Account,
  paymentTokens: PaymentTokens | null = null,
): Posting {
  const { refund } = event;
  const businessId = refund.business_id;
  return posting({
    causeKey: event.event_id,
    kind: 'refund',
    businessId,
    railReference: refund.external_id,
    lines: [
      { account: 'reserved', businessId, amountCentavos: refund.amount_centavos },
      {
        account: holding,
        businessId: null,
        amountCentavos: -refund.amount_centavos,
        ...quantity(refundedQuantity(paymentTokens, refund.amount_centavos)),
      },
    ],
    balanceTransaction: refundBalanceTransaction(event),
    settlement: null,
  });
}
