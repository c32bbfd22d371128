import { FAILING_REFUND_REASON, MAX_REFUND_FAILURE_REASON } from '@gateway/contracts';
/**
 * `pending`: recorded with what it pays, no transaction yet; `submitted`: a signed transaction is on record (sent or
 * about to be); `succeeded` / `failed`: final.
 */
export const refundStatuses = ['pending', 'submitted', 'succeeded', 'failed'] as const;
export type RefundStatus = (typeof refundStatuses)[number];

/** One recipient of a refund, as stored: the owner of the token account that paid, and its share. */
export interface RefundPayout {
  owner: string;
  amount_base_units: string;
}

/** A transfer that paid the payment: who paid it (the owner of the debited token account) and what arrived. */
export interface PayingTransfer {
  owner: string;
  amount: bigint;
}

export interface RefundAsked {
  amountCentavos: number;
  paymentAmountCentavos: number;
  /** The overpayment's excess the payment service put on this refund, in base units (0n: none). */
  excessBaseUnits: bigint;
}

export type RefundPlan =
  { kind: 'payouts'; payouts: RefundPayout[]; total: bigint } | { kind: 'refused'; reason: string };

/**
 * What an owner that sent `sent` of the `received` base units gets back: its part of the refund's share of the price
 * (`price`, the token amount the payment was priced at) plus its part of the excess the refund carries, rounded down
 * to the token's base units once, so a full refund carrying the whole excess gives back exactly what was sent and
 * the refunds of one payment never add up to more than it received.
 */
export function refundShare(sent: bigint, received: bigint, price: bigint, asked: RefundAsked): bigint {
  const paymentAmount = BigInt(asked.paymentAmountCentavos);
  return (
    (sent * (price * BigInt(asked.amountCentavos) + asked.excessBaseUnits * paymentAmount)) /
    (received * paymentAmount)
  );
}

/**
 * What a refund pays: each owner that paid gets its share (see refundShare). Excess the payment service did not put
 * on the refund (still held, or returned by hand) is never returned by it. `committed` is what the payment's other
 * refunds (not failed) already pay: together they never exceed what the paying transfers brought.
 */
export function planRefund(
  transfers: readonly PayingTransfer[],
  asked: RefundAsked,
  price: bigint,
  committed: bigint,
): RefundPlan {
  if (transfers.length === 0)
    return { kind: 'refused', reason: 'Nenhuma transferência paga para este pagamento foi encontrada.' };
  if (asked.amountCentavos > asked.paymentAmountCentavos)
    return { kind: 'refused', reason: 'O valor do reembolso é maior que o valor do pagamento.' };
  const sentBy = new Map<string, bigint>();
  for (const transfer of transfers)
    sentBy.set(transfer.owner, (sentBy.get(transfer.owner) ?? 0n) + transfer.amount);
  const received = [...sentBy.values()].reduce((sum, sent) => sum + sent, 0n);
  const priced = price < received ? price : received;
  if (asked.excessBaseUnits < 0n || asked.excessBaseUnits > received - priced)
    return {
      kind: 'refused',
      reason: 'O excedente a devolver não corresponde ao que foi recebido além do preço.',
    };
  const payouts = [...sentBy]
    .map(([owner, sent]) => ({ owner, amount: refundShare(sent, received, priced, asked) }))
    .filter((payout) => payout.amount > 0n);
  const total = payouts.reduce((sum, payout) => sum + payout.amount, 0n);
  if (total === 0n)
    return { kind: 'refused', reason: 'O valor do reembolso é menor que a menor unidade do token.' };
  if (committed + total > received)
    return { kind: 'refused', reason: 'Os reembolsos excederiam o valor recebido pelo pagamento.' };
  return {
    kind: 'payouts',
    payouts: payouts.map((payout) => ({ owner: payout.owner, amount_base_units: payout.amount.toString() })),
    total,
  };
}

/**
 * What the operator's return of held funds pays: `amount` base units back to the owners of the token accounts the
 * transfers came from, each its share of what it sent (rounded down, the remainder to the first, so together exactly
 * `amount`). Refused without a transfer to return or for more than they brought.
 */
export function planFundsReturn(transfers: readonly PayingTransfer[], amount: bigint): RefundPlan {
  if (transfers.length === 0)
    return { kind: 'refused', reason: 'Nenhuma transferência destes fundos foi encontrada na rede.' };
  const sentBy = new Map<string, bigint>();
  for (const transfer of transfers)
    sentBy.set(transfer.owner, (sentBy.get(transfer.owner) ?? 0n) + transfer.amount);
  const received = [...sentBy.values()].reduce((sum, sent) => sum + sent, 0n);
  if (amount <= 0n || amount > received)
    return {
      kind: 'refused',
      reason: 'O valor a devolver não corresponde ao que as transferências trouxeram.',
    };
  const shares = [...sentBy].map(([owner, sent]) => ({ owner, amount: (amount * sent) / received }));
  shares[0]!.amount += amount - shares.reduce((sum, share) => sum + share.amount, 0n);
  return {
    kind: 'payouts',
    payouts: shares
      .filter((share) => share.amount > 0n)
      .map((share) => ({ owner: share.owner, amount_base_units: share.amount.toString() })),
    total: amount,
  };
}

/** A transaction's status as getSignatureStatuses gives it (null: the cluster does not know the signature). */
export interface SignatureStatusLike {
  err: unknown;
  confirmationStatus?: string | null;
}

export type TransactionFate =
  | { kind: 'succeeded' }
  | { kind: 'failed'; reason: string }
  /** Landed, not confirmed yet: it may still be rolled back with its fork, so wait. */
  | { kind: 'landing' }
  /** Not known to the cluster: not sent yet, dropped, or not landed yet. */
  | { kind: 'unknown' };

/** The contract's bound on failure_reason. */

/**
 * What a status says of the refund, once confirmed (a supermajority voted for its block; a merely processed one may be
 * rolled back with its fork and land again differently): succeeded without an error, failed with the chain's.
 */
export function fateOf(status: SignatureStatusLike | null): TransactionFate {
  if (!status) return { kind: 'unknown' };
  if (status.confirmationStatus !== 'confirmed' && status.confirmationStatus !== 'finalized')
    return { kind: 'landing' };
  if (status.err === null || status.err === undefined) return { kind: 'succeeded' };
  return {
    kind: 'failed',
    reason: `A transação falhou na rede: ${JSON.stringify(status.err)}`.slice(0, MAX_REFUND_FAILURE_REASON),
  };
}

/**
 * The memo a refund's transaction carries: its refund id, so the payer can tell what it is, never the merchant's
 * reason (public on chain for ever, and it may name a person). The sandbox's failing word is the exception: the local
 * chain acts on it, and on a real chain it is an inert word.
 */
export function refundMemo(refundId: string, reason: string | null): string {
  return reason === FAILING_REFUND_REASON ? FAILING_REFUND_REASON : `refund ${refundId}`;
}

/**
 * The compute units a refund transaction asks for: the compute-budget, guard and memo instructions, then per recipient
 * its token account's idempotent creation and a checked transfer (Token-2022 included), with room to spare. A price
 * is paid on the units asked, so they are kept close to what the instructions use.
 */
export function computeUnitLimitFor(recipients: number): number {
  return BASE_COMPUTE_UNITS + COMPUTE_UNITS_PER_RECIPIENT * recipients;
}
const BASE_COMPUTE_UNITS = 30_000;
const COMPUTE_UNITS_PER_RECIPIENT = 60_000;

/**
 * The compute-unit price (micro-lamports) recent blocks ask for: the 75th percentile of their prioritization fees, so
 * the transaction outbids most recent ones without paying the spikes; 0 when none paid one.
 */
export function priceFromRecentFees(fees: readonly number[]): number {
  if (fees.length === 0) return 0;
  const sorted = [...fees].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.75))]!;
}

/** The least a raised price adds, in micro-lamports per compute unit (from 0, the first raise). */
export const MIN_PRICE_RAISE = 1_000;

/**
 * The price of the next attempt while the previous one has not landed: half as much again (at least MIN_PRICE_RAISE
 * more), or what recent blocks ask for now if that is more; never above `cap`.
 */
export function escalatedComputeUnitPrice(previous: number, recent: number, cap: number): number {
  return Math.min(cap, Math.max(recent, Math.ceil(previous * 1.5), previous + MIN_PRICE_RAISE));
}
