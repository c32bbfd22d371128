import { Router } from 'express';
import { memberOf, requirePermission } from '../member';
import { route, sendPage, textOf } from '../respond';
import { balancePage } from '../views/balance';
import { comingSoonPage } from '../views/other';

const PAGE_SIZE = 25;

/** Saldo, and the sections not built yet (each says so and what to use meanwhile). */
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
  const comingSoon = [
    { path: '/webhooks', title: 'Webhooks', meanwhile: 'Use a API pública: /v1/webhooks e suas entregas.' },
    { path: '/clientes', title: 'Clientes', meanwhile: 'Use a API pública: /v1/customers.' },
    { path: '/checkouts', title: 'Checkouts', meanwhile: 'Use a API pública: /v1/checkouts.' },
  ] as const;
  for (const section of comingSoon)
    router.get(section.path, (_req, res) =>
      sendPage(
        res,
        200,
        comingSoonPage(memberOf(res).viewer, section.path, section.title, section.meanwhile),
      ),
    );
  return router;
}
