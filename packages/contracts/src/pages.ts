import Joi from 'joi';

/**
 * Cursor pagination as docs/adr/0013-keyset-pagination.md fixes it for every list a service answers: at most `limit` items
 * (1-100, default 10) after the item whose id is `starting_after`, and `has_more` when the list goes on.
 */
export const PAGE_LIMIT_DEFAULT = 10;
export const PAGE_LIMIT_MAX = 100;

const pageLimitRange = Joi.number().integer().min(1).max(PAGE_LIMIT_MAX);

/** `limit` of a page; absent means the default (so senders written before it keep working). */
export const pageLimit = pageLimitRange.default(PAGE_LIMIT_DEFAULT);

/**
 * `limit` of a webhook's delivery history (additive, listed by a cursor of its own before the common pages): the same
 * bounds as every list, with the default it was published with.
 */
export const WEBHOOK_DELIVERIES_LIMIT_DEFAULT = 20;
export const webhookDeliveriesLimit = pageLimitRange.default(WEBHOOK_DELIVERIES_LIMIT_DEFAULT);
/** The delivery history's own cursor, as the dispatcher hands it out. */
export const webhookDeliveriesCursor = Joi.string().max(500);

export interface PageQuery {
  /** 1 to PAGE_LIMIT_MAX; the default when absent. */
  limit?: number;
  /** The id of the last item of the previous page; null or absent for the first page. */
  starting_after?: string | null;
}

export interface Page<T> {
  data: T[];
  has_more: boolean;
}

export const pageSchema = (item: Joi.Schema): Joi.ObjectSchema =>
  Joi.object({ data: Joi.array().items(item).required(), has_more: Joi.boolean().required() });

/** A page query as a store reads it: the limit with its default applied, and null for the first page's cursor. */
export function pageRequest(query: PageQuery): { limit: number; startingAfter: string | null } {
  return { limit: query.limit ?? PAGE_LIMIT_DEFAULT, startingAfter: query.starting_after ?? null };
}

/** A store's page (`rows`, `hasMore`) as a list answers it, each row shown by `item`. */
export function pageOf<R, T>(page: { rows: readonly R[]; hasMore: boolean }, item: (row: R) => T): Page<T> {
  return { data: page.rows.map((row) => item(row)), has_more: page.hasMore };
}
