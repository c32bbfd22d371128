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
  cursor: ScanCursor;
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
  for (const address of addresses) {
    const signatures = await signaturesSince(connection, address, cursor[address], pageSize);
    for (const signature of signatures) {
      if (!seen.has(signature)) {
        const transaction = await fetchTransaction(connection, signature);
        if (!transaction) break;
        seen.add(signature);
        transactions.push({ address, signature, transaction });
      }
      next[address] = signature;
    }
  }
  transactions.sort((a, b) => a.transaction.slot - b.transaction.slot);
  return { transactions, cursor: next };
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

function fetchTransaction(
  connection: Connection,
  signature: string,
): Promise<VersionedTransactionResponse | null> {
  return connection.getTransaction(signature, { maxSupportedTransactionVersion: 0, commitment: 'confirmed' });
}
