import type { EntityManager } from 'typeorm';
import type { Page, PageRequest } from '@gateway/persistence';
import type { BalanceTransactionType } from '@gateway/contracts';
import { BalanceTransactionEntity } from './balance-transaction.entity';

export interface BalanceTransactionFilter {
  businessId: string;
  type: BalanceTransactionType | null;
  createdGte: Date | null;
  createdLt: Date | null;
  oldestFirst: boolean;
}

/**
 * A page of the business's balance transactions, newest first (creation time, then id) or oldest first: keyset
 * pagination (docs/adr/0013-keyset-pagination.md). Undefined when `startingAfter` is not one of the business's
 * balance transactions; one the filters leave out still marks a position.
 */
export async function listBalanceTransactionsOf(
  manager: EntityManager,
  filter: BalanceTransactionFilter,
  page: PageRequest,
): Promise<Page<BalanceTransactionEntity> | undefined> {
  const owned = manager
    .createQueryBuilder(BalanceTransactionEntity, 'bt')
    .where('bt.business_id = :businessId', { businessId: filter.businessId });
  const direction = filter.oldestFirst ? 'ASC' : 'DESC';
  const query = owned
    .clone()
    .orderBy('bt.created_at', direction)
    .addOrderBy('bt.id', direction)
    .limit(page.limit + 1);
  if (filter.type !== null) query.andWhere('bt.type = :type', { type: filter.type });
  if (filter.createdGte !== null)
    query.andWhere('bt.created_at >= :createdGte', { createdGte: filter.createdGte });
  if (filter.createdLt !== null)
    query.andWhere('bt.created_at < :createdLt', { createdLt: filter.createdLt });
  if (page.startingAfter !== null) {
    const startingAfter = page.startingAfter;
    const inList = await owned.clone().andWhere('bt.id = :startingAfter', { startingAfter }).getExists();
    if (!inList) return undefined;
    // Compared in the database: a JS Date would lose the row's microseconds.
    query.andWhere(
      `(bt.created_at, bt.id) ${filter.oldestFirst ? '>' : '<'}
        (SELECT created_at, id FROM balance_transactions WHERE id = :startingAfter)`,
      { startingAfter },
    );
  }
  const rows = await query.getMany();
  return { rows: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
}

/** The sum of `net` of the business's balance transactions created before `before`. */
export async function netSumBefore(
  manager: EntityManager,
  businessId: string,
  before: Date,
): Promise<number> {
  const rows = (await manager.query(
    `SELECT COALESCE(SUM(net_centavos), 0) AS total FROM balance_transactions
     WHERE business_id = $1 AND created_at < $2`,
    [businessId, before],
  )) as Array<{ total: string }>;
  return Number(rows[0]!.total);
}

/**
 * Whether every balance transaction dated before `instant` is committed, so that what was dated before it never
 * changes again: false while `instant` is still to come. The first call past an instant waits for the postings in flight
 * (they date their rows under a shared lock that this takes exclusively), and records it, so later calls only look.
 */
export async function closeStatementsThrough(manager: EntityManager, instant: Date): Promise<boolean> {
  const rows = (await manager.query(`SELECT close_statements_through($1) AS closed`, [instant])) as Array<{
    closed: boolean;
  }>;
  return rows[0]!.closed;
}
