import type { RequestOrigin } from '../domain/audit';
import { verificationMail } from '../domain/mail-messages';
import { issueAccountLink, type AccountMailDeps } from './shared/account-mail';
import { recordAudit } from './shared/audit-trail';

/**
 * Mails a person a link that verifies their address (valid 48 hours, once): at sign-up, and again when they ask. The
 * token is stored before the mail goes; a mail that fails throws (the person can ask again).
 */
export async function sendEmailVerification(
  deps: AccountMailDeps,
  person: { userId: string; email: string; businessId: string },
  origin: RequestOrigin,
  now: Date = new Date(),
): Promise<void> {
  const link = await deps.dataSource.transaction(async (manager) => {
    const issued = await issueAccountLink(deps, manager, person.userId, 'verify_email', now);
    await recordAudit(manager, {
      businessId: person.businessId,
      actor: { userId: person.userId, email: person.email },
      action: 'email_verification_sent',
      target: person.email,
      origin,
    });
    return issued;
  });
  await deps.mailer.send(verificationMail(person.email, link));
}
