import { Router, type Response } from 'express';
import type { DataSource } from 'typeorm';
import { changeBusinessTimeZone } from '../../application/change-business-time-zone';
import { timeZoneChoices } from '../../domain/time-zones';
import { actorOf, originOf } from '../audit';
import { memberOf, requirePermission, type Member } from '../member';
import { route, sendPage, textOf } from '../respond';
import { businessPage } from '../views/business';

function showBusiness(
  res: Response,
  member: Member,
  extra: { status?: number; notice?: string; error?: string } = {},
): void {
  sendPage(
    res,
    extra.status ?? 200,
    businessPage(member.viewer, {
      timeZone: member.business.timeZone,
      choices: timeZoneChoices(),
      now: new Date(),
      notice: extra.notice,
      error: extra.error,
    }),
  );
}

/** Empresa (owners and admins): the business's time zone, which every page's dates follow; its change is audited. */
export function businessRoutes(dataSource: DataSource): Router {
  const router = Router();
  router.get(
    '/empresa',
    requirePermission('business:write'),
    route(async (req, res) =>
      showBusiness(res, memberOf(res), {
        notice: req.query.aviso === 'fuso' ? 'Fuso horário salvo: as datas seguem o novo fuso.' : undefined,
      }),
    ),
  );
  router.post(
    '/empresa',
    requirePermission('business:write'),
    route(async (req, res) => {
      const member = memberOf(res);
      const outcome = await changeBusinessTimeZone(
        dataSource,
        actorOf(member),
        textOf(req.body.time_zone),
        originOf(req),
      );
      if (outcome === 'invalid')
        return showBusiness(res, member, { status: 422, error: 'Escolha um fuso horário da lista.' });
      if (outcome === 'not_allowed')
        return showBusiness(res, member, { status: 403, error: 'O seu papel não permite esta ação.' });
      res.redirect(303, '/empresa?aviso=fuso');
    }),
  );
  return router;
}
