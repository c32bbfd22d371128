import { PublicKey, type Connection, type VersionedTransactionResponse } from '@solana/web3.js';

/** Last processed signature per watched address; the service persists it between scans and restarts. */
export type ScanCursor = Readonly<Record<string, string>>;

export interface ScannedTransaction {
  address: string;
  signature: string;
  transaction: VersionedTransactionResponse;
}

export interface ScanResult {
  /** Oldest first, so payments are applied in chain order. */
  transactions: ScannedTransaction[];
  /** Transactions the RPC would not hand over in a version we parse; passed, so they never stall the scan. */
  unsupported: string[];
  cursor: ScanCursor;
}

/** JSON-RPC error of a transaction whose version is above `maxSupportedTransactionVersion`. */
const UNSUPPORTED_TRANSACTION_VERSION = -32015;

function isUnsupportedVersion(err: unknown): boolean {
  return (
    typeof err === 'object' &&
    err !== null &&
    (err as { code?: unknown }).code === UNSUPPORTED_TRANSACTION_VERSION
  );
}

const DEFAULT_PAGE_SIZE = 1000;

/**
 * Fetches every transaction touching the addresses since their cursor. The cursor only moves past transactions that
 * were fetched, so an error or a not-yet-available transaction means the next scan retries from there: nothing is
 * skipped; if it throws, the caller keeps its old cursor and gets the same transactions again (consumers dedupe by
 * signature). A transaction touching several addresses is returned once.
 */
export async function scanAddresses(
  connection: Connection,
  addresses: readonly string[],
  cursor: ScanCursor,
  pageSize: number = DEFAULT_PAGE_SIZE,
): Promise<ScanResult> {
  const next: Record<string, string> = { ...cursor };
  const seen = new Set<string>();
  const transactions: ScannedTransaction[] = [];
  const unsupported: string[] = [];
  for (const address of addresses) {
    const signatures = await signaturesSince(connection, address, cursor[address], pageSize);
    for (const signature of signatures) {
      if (!seen.has(signature)) {
        const transaction = await fetchTransaction(connection, signature).catch((err: unknown) => {
          if (isUnsupportedVersion(err)) return 'unsupported' as const;
          throw err;
        });
        if (!transaction) break;
        seen.add(signature);
        if (transaction === 'unsupported') unsupported.push(signature);
        else transactions.push({ address, signature, transaction });
      }
      next[address] = signature;
    }
  }
  transactions.sort((a, b) => a.transaction.slot - b.transaction.slot);
  return { transactions, unsupported, cursor: next };
}

/** Signatures newer than `until`, oldest first, paging backwards with `before`. */
async function signaturesSince(
  connection: Connection,
  address: string,
  until: string | undefined,
  pageSize: number,
): Promise<string[]> {
  const newestFirst: string[] = [];
  let before: string | undefined;
  for (;;) {
    const page = await connection.getSignaturesForAddress(
      new PublicKey(address),
      { before, until, limit: pageSize },
      'confirmed',
    );
    newestFirst.push(...page.map((entry) => entry.signature));
    if (page.length < pageSize) break;
    before = page[page.length - 1]!.signature;
  }
  return newestFirst.reverse();
}

/**
 * Legacy and v0 are every version the chain has today; a newer one is reported by the RPC (-32015) and passed over
 * as unsupported (logged and counted by the detector) rather than misread.
 */
export const MAX_SUPPORTED_TRANSACTION_VERSION = 0;

function fetchTransaction(
  connection: Connection,
  signature: string,
): Promise<VersionedTransactionResponse | null> {
  return connection.getTransaction(signature, {
    maxSupportedTransactionVersion: MAX_SUPPORTED_TRANSACTION_VERSION,
    commitment: 'confirmed',
  });
}
