import { pageOf, type Page } from '@gateway/contracts';
import { CommandError } from './errors';

/**
 * A store's page as a list command replies it, each row shown by `item`. A store finds no page when `starting_after`
 * is not an item of that list: the command is refused as INVALID_FIELDS.
 */
export function pageReply<R, T>(
  page: { rows: readonly R[]; hasMore: boolean } | undefined,
  item: (row: R) => T,
): Page<T> {
  if (!page) throw new CommandError('INVALID_FIELDS', 'Campos inválidos: starting_after.');
  return pageOf(page, item);
}
