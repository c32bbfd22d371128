import {
  scanAddresses,
  type ChainReader,
  type ScanCursor,
  type ScanOptions,
  type ScanPage,
} from '../../src/clients/signature-scanner';

/** A whole scan with its pages collected: what the detector would have saved, page by page. */
export async function scanAll(
  connection: ChainReader,
  addresses: readonly string[],
  cursor: ScanCursor,
  options?: ScanOptions,
) {
  const pages: ScanPage[] = [];
  const outcome = await scanAddresses(
    connection,
    addresses,
    cursor,
    async (page) => {
      pages.push(page);
    },
    options,
  );
  return {
    ...outcome,
    pages,
    transactions: pages.flatMap((page) => page.transactions),
    unreadable: pages.flatMap((page) => page.unreadable),
  };
}
