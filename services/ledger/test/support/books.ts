/** Runs SQL on the ledger's schema (a test bed's `sql`, or a connection to a stack's database). */
export type LedgerSql = (text: string) => Promise<unknown[]>;

/**
 * What breaks the books, read in one statement (one snapshot): journals that do not sum to zero, and businesses whose
 * balance (available + pending + reserved + blocked) is not the sum of their balance transactions' net or of their
 * own accounts' entries. Empty when the books hold.
 */
export async function booksDisagreements(sql: LedgerSql): Promise<unknown[]> {
  return sql(`
    SELECT 'journal' AS what, journal_id::text AS id FROM entries GROUP BY journal_id HAVING sum(amount_centavos) <> 0
    UNION ALL
    SELECT 'business', b.business_id FROM balances b
    LEFT JOIN (SELECT business_id, sum(net_centavos) AS net FROM balance_transactions GROUP BY 1) t USING (business_id)
    LEFT JOIN (SELECT business_id, -sum(amount_centavos) AS owed FROM entries WHERE business_id IS NOT NULL
               GROUP BY 1) e USING (business_id)
    WHERE b.available_centavos + b.pending_centavos + b.reserved_centavos + b.blocked_centavos <> COALESCE(t.net, 0)
       OR b.available_centavos + b.pending_centavos + b.reserved_centavos + b.blocked_centavos <> COALESCE(e.owed, 0)`);
}
