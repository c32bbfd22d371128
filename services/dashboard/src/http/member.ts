import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Gateway } from '@gateway/sdk';
import type { DataSource } from 'typeorm';
import type { BusinessApi } from '../clients/business-api';
import { roleAllows, roleLabels, type Permission, type Role } from '../domain/roles';
import { findBusiness, findMembership, findUser, type BusinessEntity } from '../persistence';
import type { CurrentSession, Sessions } from './session';
import { errorPage } from './views/other';
import type { Viewer } from './views/layout';
import { sendPage } from './respond';

/** The signed-in person on this request: their business, their role in it, and the business's API client. */
export interface Member {
  userId: string;
  role: Role;
  business: BusinessEntity;
  viewer: Viewer;
  api: Gateway;
}

export function memberOf(res: Response): Member {
  const member = res.locals.member as Member | undefined;
  if (!member) throw new Error('no member on this request: requireMember must run first');
  return member;
}

export interface MemberDeps {
  dataSource: DataSource;
  api: BusinessApi;
  sessions: Sessions;
}

/** The member a session stands for, or null when it is anonymous or its membership is gone. */
export async function loadMember(
  deps: MemberDeps,
  session: CurrentSession | undefined,
): Promise<Member | null> {
  const { userId, businessId } = session?.data ?? {};
  if (!session || !userId || !businessId) return null;
  const manager = deps.dataSource.manager;
  const [user, membership, business] = await Promise.all([
    findUser(manager, userId),
    findMembership(manager, userId, businessId),
    findBusiness(manager, businessId),
  ]);
  if (!user || !membership || !business) return null;
  // A session from before the password was reset has ended.
  if (user.passwordChangedAt && new Date(session.data.createdAt) < user.passwordChangedAt) return null;
  return {
    userId: user.id,
    role: membership.role,
    business,
    viewer: {
      email: user.email,
      businessName: business.name,
      environment: business.environment,
      roleLabel: roleLabels[membership.role],
      role: membership.role,
      emailVerified: user.emailVerifiedAt !== null,
      csrfToken: session.data.csrfToken,
    },
    api: deps.api.forBusiness(business),
  };
}

/**
 * Middleware: a signed-in person with a membership in the session's business, in `res.locals.member`; otherwise a
 * page asks to sign in (a form posted without a session is refused).
 */
export function requireMember(deps: MemberDeps): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const session = deps.sessions.current(res);
      // An operator is nobody's member: the business pages are not theirs.
      if (session?.data.operator) {
        if (req.method === 'GET') return res.redirect(303, '/operador');
        return sendPage(
          res,
          403,
          errorPage(
            undefined,
            'Ação não permitida',
            'Esta página é das empresas; o seu console é /operador.',
          ),
        );
      }
      const member = await loadMember(deps, session);
      if (!member) {
        // A signed-in session whose person is gone from the business, or which a password reset ended, is ended.
        if (session?.data.userId) await deps.sessions.end(res);
        if (req.method === 'GET') return res.redirect(303, '/entrar');
        return sendPage(res, 401, errorPage(undefined, 'Sessão encerrada', 'Entre de novo para continuar.'));
      }
      res.locals.member = member;
      next();
    } catch (err) {
      next(err);
    }
  };
}

/** Middleware: the member's role allows `permission`, or the request is refused (403) whatever the page showed. */
export function requirePermission(permission: Permission): RequestHandler {
  return (_req, res, next) => {
    const member = memberOf(res);
    if (roleAllows(member.role, permission)) return next();
    sendPage(
      res,
      403,
      errorPage(member.viewer, 'Ação não permitida', 'O seu papel nesta empresa não permite esta ação.'),
    );
  };
}
