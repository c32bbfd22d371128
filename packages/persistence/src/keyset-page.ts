import type { EntityManager, EntityTarget, ObjectLiteral, SelectQueryBuilder } from 'typeorm';

/** What a caller asks of a list: at most `limit` rows, after the row whose public id is `startingAfter`. */
export interface PageRequest {
  limit: number;
  startingAfter: string | null;
}

export interface Page<T> {
  rows: T[];
  hasMore: boolean;
}

/** The columns a list is ordered by, newest first: a time, then a unique tiebreak; and the rows' public id. */
export interface PageOrder {
  time: string;
  tiebreak: string;
  publicId: string;
}

/**
 * One page of a list, newest first (keyset pagination: stable while rows are added, no OFFSET scan). `list` selects
 * the list's rows (one checkout's sessions...); undefined when `startingAfter` is not one of `cursorsFrom`'s (the list
 * itself unless told). One row more than
 * the limit is read, so `hasMore` costs no count.
 */
export async function newestFirstPage<T extends ObjectLiteral>(
  list: SelectQueryBuilder<T>,
  order: PageOrder,
  page: { limit: number; startingAfter: null },
  cursorsFrom?: SelectQueryBuilder<T>,
): Promise<Page<T>>;
export async function newestFirstPage<T extends ObjectLiteral>(
  list: SelectQueryBuilder<T>,
  order: PageOrder,
  page: PageRequest,
  cursorsFrom?: SelectQueryBuilder<T>,
): Promise<Page<T> | undefined>;
export async function newestFirstPage<T extends ObjectLiteral>(
  list: SelectQueryBuilder<T>,
  order: PageOrder,
  page: PageRequest,
  cursorsFrom: SelectQueryBuilder<T> = list,
): Promise<Page<T> | undefined> {
  const { alias } = list;
  const column = (name: string) => `${alias}.${name}`;
  const query = list
    .clone()
    .orderBy(column(order.time), 'DESC')
    .addOrderBy(column(order.tiebreak), 'DESC')
    .limit(page.limit + 1);
  if (page.startingAfter !== null) {
    const startingAfter = page.startingAfter;
    const inList = await cursorsFrom
      .clone()
      .andWhere(`${column(order.publicId)} = :startingAfter`, { startingAfter })
      .getExists();
    if (!inList) return undefined;
    // Compared in the database: a JS Date of the starting row's time would lose its microseconds.
    const table = list.expressionMap.mainAlias!.metadata.tablePath;
    query.andWhere(
      `(${column(order.time)}, ${column(order.tiebreak)}) <
        (SELECT ${order.time}, ${order.tiebreak} FROM ${table} WHERE ${order.publicId} = :startingAfter)`,
      { startingAfter },
    );
  }
  const rows = await query.getMany();
  return { rows: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
}

/**
 * A page of the rows of `entity` whose columns equal `owner` (and what `narrow` adds, on the alias `listed`), newest
 * first by creation time then id, the id being the public one: the shape of every resource list (docs/adr/0013-keyset-pagination.md). The
 * cursor may be any of the owner's rows, even one the filters now leave out (a payment paid since, a webhook deleted
 * since): it only marks a position, so a client paging a filtered list is never stuck on it.
 */
export function newestCreatedPage<T extends ObjectLiteral>(
  manager: EntityManager,
  entity: EntityTarget<T>,
  owner: Record<string, unknown>,
  page: PageRequest,
  narrow: (list: SelectQueryBuilder<T>) => void = () => undefined,
): Promise<Page<T> | undefined> {
  const owned = manager.createQueryBuilder(entity, 'listed');
  for (const [column, value] of Object.entries(owner))
    owned.andWhere(`listed.${column} = :${column}`, { [column]: value });
  const list = owned.clone();
  narrow(list);
  return newestFirstPage(list, { time: 'created_at', tiebreak: 'id', publicId: 'id' }, page, owned);
}
