import type { RefundPayout, SignatureStatusLike } from '../domain/refund';

/** What one refund transaction pays. */
export interface RefundOrder {
  /** The refund (or return) id: it names the refund's guard account, so at most one of its transactions succeeds. */
  refundId: string;
  mint: string;
  decimals: number;
  recipients: readonly RefundPayout[];
  /** Written on chain as a memo before the transfers (`refundMemo`). */
  memo: string | null;
}

/** A signed refund transaction: stored before it is sent, sent as it is until it lands or can no longer. */
export interface SignedRefund {
  signature: string;
  /** base64 wire bytes. */
  transaction: string;
  /** Past this block height its blockhash has expired: unless it landed by then, it never will. */
  lastValidBlockHeight: number;
  blockhash: string;
  /** Micro-lamports per compute unit it offers. */
  computeUnitPrice: number;
}

/** The blockhash a new attempt of the same refund keeps, with the price it offered last. */
export interface PreviousAttempt {
  blockhash: string;
  lastValidBlockHeight: number;
  computeUnitPrice: number;
}

/** The transaction cannot be made from what the refund pays (too many recipients for one transaction, a bad key). */
export class RefundNotBuildable extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'RefundNotBuildable';
  }
}

/** What the refund desk asks of the chain: who paid, signing, sending and what became of a transaction. */
export interface RefundRail {
  /** The owner of the token account a recorded transfer debited; null when its transaction shows no such transfer. */
  payerOf(transfer: { signature: string; reference: string; instruction?: string }): Promise<string | null>;
  signFresh(order: RefundOrder): Promise<SignedRefund>;
  signHigher(order: RefundOrder, previous: PreviousAttempt): Promise<SignedRefund | null>;
  send(transaction: string): Promise<void>;
  statuses(signatures: readonly string[]): Promise<(SignatureStatusLike | null)[]>;
  blockHeight(): Promise<number>;
}
