import type { EntityManager } from 'typeorm';
import type { AuditAction, RequestOrigin } from '../../domain/audit';
import type { Role } from '../../domain/roles';
import { insertAuditEntry } from '../../persistence';

/** Who acts in the dashboard: a person signed in to a business, with their role in it. */
export interface Actor {
  userId: string;
  email: string;
  businessId: string;
  role: Role;
}

/** One entry of the audit log: who did what to what, in which business, from where. */
export interface AuditRecord {
  /** Null only when no business is known (a failed sign-in with an unknown e-mail). */
  businessId: string | null;
  actor: { userId: string | null; email: string | null };
  action: AuditAction;
  target?: string | null;
  details?: Record<string, string>;
  origin: RequestOrigin;
}

/**
 * Appends an entry to the audit log. Every action of the dashboard calls it, inside the action's own transaction where
 * it has one, so an action and its entry are kept together or not at all.
 */
export async function recordAudit(manager: EntityManager, record: AuditRecord): Promise<void> {
  await insertAuditEntry(manager, {
    businessId: record.businessId,
    actorUserId: record.actor.userId,
    actorEmail: record.actor.email,
    action: record.action,
    target: record.target ?? null,
    details: record.details ?? {},
    clientAddress: record.origin.clientAddress,
    userAgent: record.origin.userAgent,
  });
}

/** The entry's actor as a signed-in person. */
export function actorOf(actor: Actor): AuditRecord['actor'] {
  return { userId: actor.userId, email: actor.email };
}
