import type { RequestOrigin } from '../domain/audit';
import { passwordResetMail } from '../domain/mail-messages';
import { findUserByEmail } from '../persistence';
import { homeBusinessOf, issueAccountLink, type AccountMailDeps } from './shared/account-mail';
import { recordAudit } from './shared/audit-trail';

/**
 * "Esqueci minha senha": when an account has the address, mails it a link to choose a new password (valid one hour,
 * once). The caller answers the same whether or not one has it, and does not wait for this (the time taken would tell).
 */
export async function requestPasswordReset(
  deps: AccountMailDeps,
  email: string,
  origin: RequestOrigin,
  now: Date = new Date(),
): Promise<'mailed' | 'no_account'> {
  const user = await findUserByEmail(deps.dataSource.manager, email);
  if (!user) return 'no_account';
  const link = await deps.dataSource.transaction(async (manager) => {
    const issued = await issueAccountLink(deps, manager, user.id, 'reset_password', now);
    await recordAudit(manager, {
      businessId: await homeBusinessOf(manager, user.id),
      actor: { userId: user.id, email: user.email },
      action: 'password_reset_requested',
      target: user.email,
      origin,
    });
    return issued;
  });
  await deps.mailer.send(passwordResetMail(user.email, link));
  return 'mailed';
}
