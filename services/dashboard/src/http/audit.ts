import type { Request } from 'express';
import type { DataSource } from 'typeorm';
import { recordAudit, type Actor } from '../application/shared/audit-trail';
import { requestOrigin, type AuditAction, type RequestOrigin } from '../domain/audit';
import { findUserByEmail, membershipsOf } from '../persistence';
import type { Member } from './member';

/** Where a request came from, for the audit log: the client address (TRUST_PROXY decides it) and the user agent. */
export function originOf(req: Request): RequestOrigin {
  return requestOrigin(req.ip, req.get('user-agent'));
}

/** The signed-in member as the use cases' actor. */
export function actorOf(member: Member): Actor {
  return {
    userId: member.userId,
    email: member.viewer.email,
    businessId: member.business.id,
    role: member.role,
  };
}

/** Records what a signed-in member did on this request (for actions that have no use case of their own here). */
export function recordMemberAction(
  dataSource: DataSource,
  req: Request,
  member: Member,
  entry: { action: AuditAction; target: string; details?: Record<string, string> },
): Promise<void> {
  return recordAudit(dataSource.manager, {
    businessId: member.business.id,
    actor: { userId: member.userId, email: member.viewer.email },
    origin: originOf(req),
    ...entry,
  });
}

/**
 * Records a sign-in: its success in the business it opens, its failure in the business of the account the address
 * names (an unknown address's failure is kept with no business: only operators read those, as their own sign-ins).
 */
export async function recordSignIn(
  dataSource: DataSource,
  req: Request,
  attempt: { email: string; userId?: string; businessId?: string; operator?: boolean; refusal?: string },
): Promise<void> {
  const manager = dataSource.manager;
  const user = attempt.userId ? { id: attempt.userId } : await findUserByEmail(manager, attempt.email);
  const businessId = attempt.operator
    ? null
    : (attempt.businessId ?? (user ? (await membershipsOf(manager, user.id))[0]?.businessId : null));
  await recordAudit(manager, {
    businessId: businessId ?? null,
    actor: { userId: user?.id ?? null, email: attempt.email },
    action: attempt.refusal ? 'sign_in_failed' : 'sign_in',
    details: attempt.refusal ? { reason: attempt.refusal } : {},
    origin: originOf(req),
  });
}
