import { Router } from 'express';
import { memberOf, requirePermission } from '../member';
import { route, sendPage, textOf } from '../respond';
import { balancePage } from '../views/balance';

const PAGE_SIZE = 25;

/** Saldo: the balance and its transactions. */
export function sectionRoutes(): Router {
  const router = Router();
  router.get(
    '/saldo',
    requirePermission('balance:read'),
    route(async (req, res) => {
      const member = memberOf(res);
      const after = textOf(req.query.depois);
      const [balance, transactions] = await Promise.all([
        member.api.balance.get(),
        member.api.balanceTransactions.list({
          limit: PAGE_SIZE,
          ...(after ? { starting_after: after } : {}),
        }),
      ]);
      sendPage(
        res,
        200,
        balancePage(member.viewer, {
          balance,
          transactions: transactions.data,
          nextCursor: transactions.has_more ? transactions.data.at(-1)?.id : undefined,
          timeZone: member.business.timeZone,
        }),
      );
    }),
  );
  return router;
}
