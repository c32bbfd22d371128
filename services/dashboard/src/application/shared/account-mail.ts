import { randomBytes } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import type { Mailer } from '../../clients/mailer';
import {
  newOneTimeToken,
  TOKEN_LIFETIME_MS,
  tokenLink,
  type AccountTokenPurpose,
} from '../../domain/one-time-token';
import { insertAccountToken, membershipsOf } from '../../persistence';

/** What the use cases that mail people links need. */
export interface AccountMailDeps {
  dataSource: DataSource;
  mailer: Mailer;
  /** The dashboard's address as people reach it (DASHBOARD_PUBLIC_URL): every mailed link starts with it. */
  publicUrl: string;
}

/** The page each purpose's link opens. */
const linkPaths: Record<AccountTokenPurpose, string> = {
  verify_email: '/verificar-email',
  reset_password: '/redefinir-senha',
  operator_invitation: '/operador/convite',
};

/**
 * Issues a one-time token for the user (only its hash stored, expiring after its purpose's lifetime) and answers the
 * link that carries it.
 */
export async function issueAccountLink(
  deps: AccountMailDeps,
  manager: EntityManager,
  userId: string,
  purpose: AccountTokenPurpose,
  now: Date,
): Promise<string> {
  const { token, hash } = newOneTimeToken(randomBytes);
  await insertAccountToken(manager, {
    tokenHash: hash,
    purpose,
    userId,
    expiresAt: new Date(now.getTime() + TOKEN_LIFETIME_MS[purpose]),
  });
  return tokenLink(deps.publicUrl, linkPaths[purpose], token);
}

/** The business a person's entries go to when no page names one: their first (a sign-in opens it). */
export async function homeBusinessOf(manager: EntityManager, userId: string): Promise<string | null> {
  return (await membershipsOf(manager, userId))[0]?.businessId ?? null;
}
