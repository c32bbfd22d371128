import type { FetchedTransaction } from '../domain/transfer-validation';
import { RpcError, UnexpectedAnswer, type SignatureInfo, type SolanaRpc } from './solana-rpc';

/** What a scan reads of the node (a `SolanaRpc`; tests hand it a node of their own). */
export type ChainReader = Pick<SolanaRpc, 'getSignaturesForAddress' | 'getTransaction'>;

/** Last processed signature per watched address; the service persists it between scans and restarts. */
export type ScanCursor = Readonly<Record<string, string>>;

export interface ScannedTransaction {
  address: string;
  signature: string;
  transaction: FetchedTransaction;
}

/** A listed transaction the watcher could not read: the node refused its version, or answered a shape we cannot parse. */
export interface UnreadableTransaction {
  /** The watched address (receiving token account or reference) whose listing showed it. */
  address: string;
  signature: string;
  /** Unix seconds, from the listing; null when the node did not give one. */
  blockTime: number | null;
  /** Why it could not be read, for the operator. */
  error: string;
}

/** What a scan read since its previous page, and where every address's cursor stands after it. */
export interface ScanPage {
  /** Oldest first per address, so payments are applied in chain order. */
  transactions: ScannedTransaction[];
  /**
   * Transactions the watcher could not read. The scan moves past them so they never stall it; the caller records
   * them (with the page) and reads them again later: none is skipped.
   */
  unreadable: UnreadableTransaction[];
  cursor: ScanCursor;
}

export interface ScanOutcome {
  cursor: ScanCursor;
  /**
   * Transactions listed but left for a later scan: not finalized yet, or not served by `getTransaction` yet. The
   * cursor stops before the first of them on its address, so none is ever skipped.
   */
  heldBack: number;
  /** Block time (unix seconds) of the oldest held-back transaction; 0 when the RPC did not give one. */
  heldBackSince: number | null;
  /** Whether the scan stopped at `maxReads` with listed transactions left unread (counted in `heldBack`). */
  budgetSpent: boolean;
}

export interface ScanOptions {
  /**
   * The finalized slot read before listing. A transaction counts only once finalized: its listing entry says
   * `finalized`, or its slot is at or below this one.
   */
  finalizedSlot?: number;
  /** `getSignaturesForAddress` page size; Agave refuses more than 1000. */
  pageSize?: number;
  /** Transactions read between two saved pages. */
  pageTransactions?: number;
  /**
   * The most transactions this scan reads (`getTransaction` requests); the ones listed beyond it are held back for
   * the next scan, as a transaction not final yet is. None by default.
   */
  maxReads?: number;
  /**
   * Signatures read already (by a scan of the open payments' references): the cursor moves past them without
   * reading them again.
   */
  readAlready?: ReadonlySet<string>;
}

/** JSON-RPC error of a transaction whose version is above `maxSupportedTransactionVersion`. */
const UNSUPPORTED_TRANSACTION_VERSION = -32015;

/**
 * Why a transaction cannot be read, or null when the failure is of the node or the network (the scan stops and tries
 * again). Unreadable: the node refuses its version (-32015), its answer is not in the shape the watcher reads
 * (UnexpectedAnswer), or the answer has no status metadata, without which the token movements are unknown.
 */
function unreadableBecause(err: unknown): string | null {
  if (err instanceof RpcError && err.code === UNSUPPORTED_TRANSACTION_VERSION) return err.message;
  if (err instanceof UnexpectedAnswer) return err.message;
  return null;
}

/** A transaction as the watcher reads it: its answer, unreadable (and why), or null when not served yet. */
export type ReadTransaction = FetchedTransaction | { unreadable: string } | null;

/** Reads one transaction, telling a transaction the watcher cannot read from a node that failed. */
export async function readTransaction(connection: ChainReader, signature: string): Promise<ReadTransaction> {
  try {
    const transaction = await fetchTransaction(connection, signature);
    if (transaction && !transaction.meta) return { unreadable: 'the node served it without status metadata' };
    return transaction;
  } catch (err) {
    const because = unreadableBecause(err);
    if (because === null) throw err;
    return { unreadable: because };
  }
}

/** Agave's maximum `limit` for `getSignaturesForAddress` (-32602 "Invalid limit; max 1000" above it). */
export const MAX_SIGNATURES_PAGE = 1000;
/** At 4 requests per second (a public endpoint's budget), a page is saved every 2.5 s of reading. */
const DEFAULT_PAGE_TRANSACTIONS = 10;

/**
 * Reads every finalized transaction touching the addresses since their cursor, oldest first, handing them to
 * `onPage` every few transactions together with the moved cursor; `onPage` saves both, and a failure mid-scan (an
 * RPC that stops answering, rate limits outlasting the retry policy) hands over what was read before it is thrown,
 * so nothing already read is lost and the next scan resumes there. The cursor only moves past transactions that were
 * read, or handed over as unreadable (for the caller to record): a listed signature whose transaction is not
 * finalized yet, or which `getTransaction` does not serve yet (null), stops its address's scan until a later one.
 * Consumers dedupe by signature; a transaction touching several addresses is read once per scan.
 */
export async function scanAddresses(
  connection: ChainReader,
  addresses: readonly string[],
  cursor: ScanCursor,
  onPage: (page: ScanPage) => Promise<void>,
  options: ScanOptions = {},
): Promise<ScanOutcome> {
  const next: Record<string, string> = { ...cursor };
  const pageTransactions = options.pageTransactions ?? DEFAULT_PAGE_TRANSACTIONS;
  const read = new Set<string>();
  let page: ScanPage = { transactions: [], unreadable: [], cursor: next };
  let pageChanged = false;
  let heldBack = 0;
  let heldBackSince: number | null = null;
  let reads = 0;
  let budgetSpent = false;
  const maxReads = options.maxReads ?? Number.POSITIVE_INFINITY;
  const flush = async (): Promise<void> => {
    if (!pageChanged) return;
    const done = { ...page, cursor: { ...next } };
    page = { transactions: [], unreadable: [], cursor: next };
    pageChanged = false;
    await onPage(done);
  };

  try {
    for (const address of addresses) await scanAddress(address);
  } catch (err) {
    // What was read before the failure is saved all the same: the next scan resumes after it.
    await flush();
    throw err;
  }
  return { cursor: { ...next }, heldBack, heldBackSince, budgetSpent };

  async function scanAddress(address: string): Promise<void> {
    const entries = await signaturesSince(connection, address, cursor[address], options.pageSize);
    for (const [index, entry] of entries.entries()) {
      const { signature } = entry;
      if (!read.has(signature) && !options.readAlready?.has(signature)) {
        const spent = reads >= maxReads;
        budgetSpent ||= spent;
        const final = !spent && isFinal(entry, options.finalizedSlot);
        if (final) reads += 1;
        const transaction = final ? await readTransaction(connection, signature) : null;
        if (!transaction) {
          heldBack += entries.length - index;
          const since = entry.blockTime ?? 0;
          heldBackSince = heldBackSince === null ? since : Math.min(heldBackSince, since);
          break;
        }
        read.add(signature);
        if ('unreadable' in transaction)
          page.unreadable.push({
            address,
            signature,
            blockTime: entry.blockTime ?? null,
            error: transaction.unreadable,
          });
        else page.transactions.push({ address, signature, transaction });
      }
      next[address] = signature;
      pageChanged = true;
      if (page.transactions.length + page.unreadable.length >= pageTransactions) await flush();
    }
    await flush();
  }
}

function isFinal(entry: SignatureInfo, finalizedSlot: number | undefined): boolean {
  return (
    entry.confirmationStatus === 'finalized' || (finalizedSlot !== undefined && entry.slot <= finalizedSlot)
  );
}

/**
 * Whether `signature` is among the transactions listed for `address` (e.g. a reference key), newest first, up to
 * Agave's page size: how an unreadable transaction is tied to the references it names.
 */
export async function listsSignature(
  connection: ChainReader,
  address: string,
  signature: string,
): Promise<boolean> {
  const listed = await connection.getSignaturesForAddress(
    address,
    { limit: MAX_SIGNATURES_PAGE },
    'confirmed',
  );
  return listed.some((entry) => entry.signature === signature);
}

/**
 * Signatures newer than `until`, oldest first, paging backwards with `before`; listed at `confirmed`, the lowest
 * commitment Agave serves this method at, so a payment is seen as soon as the cluster confirmed it.
 */
async function signaturesSince(
  connection: ChainReader,
  address: string,
  until: string | undefined,
  pageSize: number = MAX_SIGNATURES_PAGE,
): Promise<SignatureInfo[]> {
  const newestFirst: SignatureInfo[] = [];
  let before: string | undefined;
  for (;;) {
    const page = await connection.getSignaturesForAddress(
      address,
      { before, until, limit: pageSize },
      'confirmed',
    );
    newestFirst.push(...page);
    if (page.length < pageSize) break;
    before = page[page.length - 1]!.signature;
  }
  return newestFirst.reverse();
}

/**
 * Legacy and v0 are every version the chain has today, and asking for them makes the RPC serve both; a newer one is
 * refused by the RPC (-32015) and recorded as unreadable (counted, alerted on, read again later) rather than misread.
 */
export const MAX_SUPPORTED_TRANSACTION_VERSION = 0;

/** Read at `confirmed`: a transaction already listed as finalized is served at any commitment. */
function fetchTransaction(connection: ChainReader, signature: string): Promise<FetchedTransaction | null> {
  return connection.getTransaction(signature, {
    maxSupportedTransactionVersion: MAX_SUPPORTED_TRANSACTION_VERSION,
    commitment: 'confirmed',
  });
}
