import type { UnappliedTransferReason } from '@gateway/contracts';

/** `cancelled`: its payment was cancelled while it was open; it never settles, whatever arrives afterwards. */
export const requestStatuses = [
  'open',
  'settled',
  'expired',
  'underpaid',
  'failed',
  'superseded',
  'cancelled',
] as const;
export type RequestStatus = (typeof requestStatuses)[number];

/**
 * Where a transfer's funds went: the payment, or recorded aside (never silently lost); `ambiguous`: the instruction
 * named two or more payments' references and pays none of them.
 */
export const transferDestinations = ['payment', 'late', 'wrong_mint', 'superseded', 'ambiguous'] as const;
export type TransferDestination = (typeof transferDestinations)[number];

export interface RequestState {
  status: RequestStatus;
  mint: string;
  amount: bigint;
  received: bigint;
  expiresAt: Date;
}

export interface IncomingTransfer {
  /** `wrong_mint` when the token program or mint is not one the watcher accepts at all. */
  kind: 'received' | 'wrong_mint';
  mint: string;
  amount: bigint;
  /** Unix seconds of the block it landed in, as the RPC gives it; null when the node does not know it. */
  blockTime: number | null;
}

export interface TransferApplication {
  appliedTo: TransferDestination;
  /** The request's received total after this transfer. */
  received: bigint;
  /** True when this transfer completes the amount: the request settles now. */
  settles: boolean;
  /** What was received beyond the amount, when it settles. */
  excess: bigint;
}

/**
 * Whether the transfer landed after the request's window: its block time is after `expires_at`. The watcher may
 * see it much later (it was down, or the RPC was); what counts is when the chain took it, not when it was seen.
 * Block times are whole seconds, so a transfer in the second the window ends still counts. Without a block time the
 * request's status decides alone.
 */
export function landedAfterWindow(expiresAt: Date, blockTime: number | null): boolean {
  return blockTime !== null && blockTime * 1000 > expiresAt.getTime();
}

/**
 * Decides what one transfer does to its request: only the request's own mint, landed while the request was open and
 * within its window, counts towards it.
 */
export function applyTransfer(request: RequestState, transfer: IncomingTransfer): TransferApplication {
  const aside = (appliedTo: TransferDestination): TransferApplication => ({
    appliedTo,
    received: request.received,
    settles: false,
    excess: 0n,
  });
  if (transfer.kind === 'wrong_mint' || transfer.mint !== request.mint) return aside('wrong_mint');
  if (request.status === 'superseded') return aside('superseded');
  if (request.status !== 'open' || landedAfterWindow(request.expiresAt, transfer.blockTime))
    return aside('late');
  const received = request.received + transfer.amount;
  const settles = received >= request.amount;
  return { appliedTo: 'payment', received, settles, excess: settles ? received - request.amount : 0n };
}

/** Why an open request that reached its expiry closes: nothing arrived, or not enough. */
export function expiryReason(received: bigint): 'expired' | 'underpaid' {
  return received === 0n ? 'expired' : 'underpaid';
}

/**
 * Why a transfer recorded aside did not count, as the payment service is told: `late` splits into after the request
 * was paid and after it ended unpaid (expired, underpaid, failed or cancelled: its window is over either way).
 */
export function unappliedReason(
  appliedTo: Exclude<TransferDestination, 'payment'>,
  status: RequestStatus,
): UnappliedTransferReason {
  if (appliedTo !== 'late') return appliedTo;
  return status === 'settled' ? 'after_settlement' : 'after_expiry';
}
