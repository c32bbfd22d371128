import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { DataSource } from 'typeorm';
import { recordAudit } from '../application/shared/audit-trail';
import { hasSecondFactor } from '../application/verify-second-factor';
import type { AuditAction } from '../domain/audit';
import { consoleAccess, ENROLMENT_PATH, type ConsoleVisitor } from '../domain/operator-rules';
import { findOperator, findUser } from '../persistence';
import { originOf } from './audit';
import { sendPage } from './respond';
import type { Sessions } from './session';
import { errorPage } from './views/other';
import type { OperatorViewer } from './views/operator-layout';

/** The signed-in operator on this request. */
export interface Operator {
  userId: string;
  viewer: OperatorViewer;
}

export function operatorOf(res: Response): Operator {
  const operator = res.locals.operator as Operator | undefined;
  if (!operator) throw new Error('no operator on this request: requireOperator must run first');
  return operator;
}

/**
 * Middleware of the console (/operador): a signed-in operator, in `res.locals.operator`, with a confirmed second
 * factor (until they have one, only its enrolment page opens). A business's member is refused (403) every page and
 * action; nobody signed in is asked to sign in.
 */
export function requireOperator(deps: { dataSource: DataSource; sessions: Sessions }): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const session = deps.sessions.current(res);
      const manager = deps.dataSource.manager;
      const data = session?.data;
      let visitor: ConsoleVisitor = { kind: 'anonymous' };
      let operator: Operator | undefined;
      if (data?.userId && !data.operator) visitor = { kind: 'member' };
      else if (data?.userId && data.operator) {
        const [user, grant] = await Promise.all([
          findUser(manager, data.userId),
          findOperator(manager, data.userId),
        ]);
        // A session from before the password was (re)set has ended.
        const current =
          user && (!user.passwordChangedAt || new Date(data.createdAt) >= user.passwordChangedAt);
        if (user && grant && current) {
          visitor = { kind: 'operator', secondFactor: await hasSecondFactor(deps.dataSource, user.id) };
          operator = { userId: user.id, viewer: { email: user.email, csrfToken: data.csrfToken } };
        } else await deps.sessions.end(res);
      }
      const access = consoleAccess(visitor, req.path === '/' ? req.baseUrl : `${req.baseUrl}${req.path}`);
      if (access === 'allow') {
        res.locals.operator = operator;
        return next();
      }
      if (access === 'forbidden')
        return sendPage(
          res,
          403,
          errorPage(undefined, 'Acesso negado', 'Esta área é só dos operadores da plataforma.'),
        );
      if (access === 'enrol_first') {
        if (req.method === 'GET') return res.redirect(303, ENROLMENT_PATH);
        return sendPage(
          res,
          403,
          errorPage(undefined, 'Verificação em duas etapas', 'Ative a verificação em duas etapas primeiro.'),
        );
      }
      if (req.method === 'GET') return res.redirect(303, '/entrar');
      sendPage(res, 401, errorPage(undefined, 'Sessão encerrada', 'Entre de novo para continuar.'));
    } catch (err) {
      next(err);
    }
  };
}

/** Records what the signed-in operator did on this request: an entry of no business (`target` names what). */
export function recordOperatorAction(
  dataSource: DataSource,
  req: Request,
  operator: Operator,
  entry: { action: AuditAction; target: string; details?: Record<string, string> },
): Promise<void> {
  return recordAudit(dataSource.manager, {
    businessId: null,
    actor: { userId: operator.userId, email: operator.viewer.email },
    origin: originOf(req),
    ...entry,
  });
}
