import type { DataSource } from 'typeorm';
import type { GetStatementSummary, StatementSummary } from '@gateway/contracts';
import { statementMonthBounds } from '../domain/statement-month';
import { closeStatementsThrough, netSumBefore } from '../persistence';

/**
 * A month's opening balance (the sum of `net` of the business's balance transactions created before its first
 * instant, UTC) and closing balance (the same before the next month's), read in one snapshot. First the statements are
 * closed through the month's end, or its start for the month under way: a posting dated before it that is still in
 * flight is waited for, so the month's rows (which the caller lists next) and its opening never change afterwards.
 */
export function handleGetStatementSummary(dataSource: DataSource) {
  return async (query: GetStatementSummary): Promise<StatementSummary> => {
    const { from, to } = statementMonthBounds(query.month);
    if (!(await closeStatementsThrough(dataSource.manager, to)))
      await closeStatementsThrough(dataSource.manager, from);
    const [opening, closing] = await dataSource.transaction('REPEATABLE READ', async (manager) => [
      await netSumBefore(manager, query.business_id, from),
      await netSumBefore(manager, query.business_id, to),
    ]);
    return {
      business_id: query.business_id,
      month: query.month,
      from: from.toISOString(),
      to: to.toISOString(),
      opening_balance_centavos: opening,
      closing_balance_centavos: closing,
    };
  };
}
