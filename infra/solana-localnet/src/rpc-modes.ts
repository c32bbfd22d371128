/**
 * Ways a real RPC node or provider behaves that the watcher must survive, off by default so the sandbox stays fast.
 */
export interface RpcModes {
  /** A landed transaction is `processed` only for this long, then `confirmed` (a real cluster: about 1 s). */
  confirmedLagMs: number;
  /** ... and `finalized` this long after it landed (a real cluster: 32 slots, about 13 s). */
  finalizedLagMs: number;
  /**
   * `getTransaction` answers null for this long after a transaction landed, even once it is listed: an RPC pool
   * whose node answering `getTransaction` lags the one that answered `getSignaturesForAddress`.
   */
  transactionLagMs: number;
  /**
   * `sendTransaction` answers the signature but the transaction never reaches a leader, as an overloaded node drops
   * it: it lands only if sent again (to a node not dropping) while its blockhash is still valid.
   */
  dropTransactions: boolean;
  /**
   * A congested cluster: leaders fill their blocks with transactions paying at least this many micro-lamports per
   * compute unit. One offering less is answered its signature but never lands (as `dropTransactions`), and every
   * recent slot's prioritization fee is at least this price. 0: no congestion.
   */
  congestionComputeUnitPrice: number;
  rateLimit: RateLimit | null;
  /**
   * Transactions the node holds in a transaction version newer than any a client can ask for (a future version):
   * `getTransaction` refuses them with -32015 whatever `maxSupportedTransactionVersion` says, as Agave refuses a
   * version above the one asked for. Listed by `getSignaturesForAddress` as any other.
   */
  futureVersionSignatures: readonly string[];
}

/** A provider's budget per method per window, as public endpoints enforce it (e.g. 40 `getTransaction` per 10 s). */
export interface RateLimit {
  windowMs: number;
  /** Requests per window per method; `*` is each method not listed; a method without a budget is not limited. */
  perMethod: Record<string, number>;
  /**
   * Whether a 429 says when to come back (`Retry-After`, whole seconds until the window frees a request): providers
   * differ, many never do. `alternate` sends it on every other refusal.
   */
  retryAfter: 'always' | 'never' | 'alternate';
}

export const DEFAULT_RPC_MODES: RpcModes = {
  confirmedLagMs: 0,
  finalizedLagMs: 0,
  transactionLagMs: 0,
  dropTransactions: false,
  congestionComputeUnitPrice: 0,
  rateLimit: null,
  futureVersionSignatures: [],
};

export type Refusal = { retryAfterSeconds: number | null } | null;

/** Sliding-window counts per method; a refused request does not count. */
export class RateLimiter {
  private readonly sent = new Map<string, number[]>();
  private refusals = 0;

  constructor(private readonly limit: () => RateLimit | null) {}

  /** Counts the request, or returns why it is refused. */
  admit(method: string, now: number = Date.now()): Refusal {
    const limit = this.limit();
    const budget = limit?.perMethod[method] ?? limit?.perMethod['*'];
    if (!limit || budget === undefined) return null;
    const recent = (this.sent.get(method) ?? []).filter((at) => at > now - limit.windowMs);
    this.sent.set(method, recent);
    if (recent.length < budget) {
      recent.push(now);
      return null;
    }
    this.refusals += 1;
    const withHeader =
      limit.retryAfter === 'always' || (limit.retryAfter === 'alternate' && this.refusals % 2 === 1);
    const freesAt = (recent[0] ?? now) + limit.windowMs;
    return { retryAfterSeconds: withHeader ? Math.max(1, Math.ceil((freesAt - now) / 1000)) : null };
  }
}
