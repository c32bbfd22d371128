import { Router } from 'express';
import type { Logger } from '@gateway/observability';
import { acceptInvitation, openInvitation } from '../../application/accept-invitation';
import { requestPasswordReset } from '../../application/request-password-reset';
import { resetPassword } from '../../application/reset-password';
import { verifyEmail } from '../../application/verify-email';
import { hasSecondFactor } from '../../application/verify-second-factor';
import type { AccountMailDeps } from '../../application/shared/account-mail';
import { hashToken, isTokenShaped } from '../../domain/one-time-token';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../domain/password';
import { normaliseEmail } from '../../domain/sign-up-form';
import { peekAccountToken, type LoginAttemptStore } from '../../persistence';
import { originOf } from '../audit';
import type { Sessions } from '../session';
import { route, sendPage, textOf } from '../respond';
import {
  acceptInvitationPage,
  emailVerifiedPage,
  forgotPasswordPage,
  invalidLinkPage,
  resetPasswordPage,
  verifyEmailPage,
} from '../views/account';

export interface AccountRouteDeps {
  sessions: Sessions;
  mail: AccountMailDeps;
  attempts: LoginAttemptStore;
  /** The client address's budget a minute, shared with sign-in: mailing a link and trying a password count alike. */
  attemptsPerMinute: number;
  /** Sign-in's account lockout, which a password typed to accept an invitation counts toward too. */
  maxFailures: number;
  lockSeconds: number;
  logger: Logger;
}

/** Why a new password is refused, or undefined when it is within bounds. */
function passwordProblem(password: string): string | undefined {
  if (password.length < PASSWORD_MIN_LENGTH)
    return `A senha precisa de pelo menos ${PASSWORD_MIN_LENGTH} caracteres.`;
  if (password.length > PASSWORD_MAX_LENGTH) return `A senha pode ter até ${PASSWORD_MAX_LENGTH} caracteres.`;
  return undefined;
}

const TOO_MANY = 'Muitas tentativas a partir deste endereço. Aguarde um minuto.';
const LOCKED = 'Conta bloqueada temporariamente por excesso de tentativas. Tente de novo mais tarde.';

/**
 * The pages a mailed link opens, before signing in: e-mail verification, "Esqueci minha senha" and the new password,
 * an invitation's acceptance. A link is a GET and changes nothing: the page asks to confirm with a form (CSRF-checked),
 * so a mail scanner that follows links uses no token.
 */
export function accountRoutes(deps: AccountRouteDeps): Router {
  const router = Router();
  const { sessions } = deps;
  const overLimit = async (clientAddress: string | undefined) =>
    (await deps.attempts.countAttempt(clientAddress ?? 'unknown', new Date())) > deps.attemptsPerMinute;

  router.get(
    '/verificar-email',
    route(async (req, res) => {
      const token = req.query.token;
      const now = new Date();
      if (
        !isTokenShaped(token) ||
        !(await peekAccountToken(deps.mail.dataSource.manager, hashToken(token), 'verify_email', now))
      )
        return sendPage(res, 400, invalidLinkPage('Este link de verificação'));
      const session = await sessions.ensure(res);
      sendPage(res, 200, verifyEmailPage({ csrfToken: session.data.csrfToken, token }));
    }),
  );
  router.post(
    '/verificar-email',
    route(async (req, res) => {
      const token = req.body.token as unknown;
      const outcome = isTokenShaped(token)
        ? await verifyEmail(deps.mail.dataSource, token, originOf(req))
        : 'invalid';
      if (outcome === 'invalid') return sendPage(res, 400, invalidLinkPage('Este link de verificação'));
      sendPage(res, 200, emailVerifiedPage(Boolean(sessions.current(res)?.data.userId)));
    }),
  );

  router.get(
    '/esqueci-senha',
    route(async (_req, res) => {
      const session = await sessions.ensure(res);
      sendPage(res, 200, forgotPasswordPage({ csrfToken: session.data.csrfToken }));
    }),
  );
  router.post(
    '/esqueci-senha',
    route(async (req, res) => {
      const email = normaliseEmail(req.body.email);
      const csrfToken = sessions.current(res)!.data.csrfToken;
      if (await overLimit(req.ip))
        return sendPage(res, 429, forgotPasswordPage({ csrfToken, email, error: TOO_MANY }));
      // Not awaited: the answer is the same, and as quick, whether or not an account has the address.
      if (email)
        void requestPasswordReset(deps.mail, email, originOf(req)).catch((err: unknown) =>
          deps.logger.warn({ err: { message: (err as Error).message } }, 'password reset mail not sent'),
        );
      sendPage(res, 200, forgotPasswordPage({ csrfToken, sent: true }));
    }),
  );

  router.get(
    '/redefinir-senha',
    route(async (req, res) => {
      const token = req.query.token;
      if (
        !isTokenShaped(token) ||
        !(await peekAccountToken(
          deps.mail.dataSource.manager,
          hashToken(token),
          'reset_password',
          new Date(),
        ))
      )
        return sendPage(res, 400, invalidLinkPage('Este link de redefinição de senha'));
      const session = await sessions.ensure(res);
      sendPage(res, 200, resetPasswordPage({ csrfToken: session.data.csrfToken, token }));
    }),
  );
  router.post(
    '/redefinir-senha',
    route(async (req, res) => {
      const token = req.body.token as unknown;
      const password = textOf(req.body.password);
      if (!isTokenShaped(token))
        return sendPage(res, 400, invalidLinkPage('Este link de redefinição de senha'));
      const problem = passwordProblem(password);
      if (problem)
        return sendPage(
          res,
          422,
          resetPasswordPage({ csrfToken: sessions.current(res)!.data.csrfToken, token, error: problem }),
        );
      const outcome = await resetPassword(deps.mail.dataSource, { token, password }, originOf(req));
      if (outcome.kind === 'invalid')
        return sendPage(res, 400, invalidLinkPage('Este link de redefinição de senha'));
      await deps.attempts.clearFailures(outcome.email);
      // No session from the link: the mailbox alone is not the account. Signing in asks for the second factor.
      await sessions.end(res);
      res.redirect(303, '/entrar?aviso=senha-redefinida');
    }),
  );

  router.get(
    '/convites/aceitar',
    route(async (req, res) => {
      const token = req.query.token;
      const open = isTokenShaped(token) ? await openInvitation(deps.mail.dataSource, token) : null;
      if (!open) return sendPage(res, 400, invalidLinkPage('Este convite'));
      const session = await sessions.ensure(res);
      sendPage(
        res,
        200,
        acceptInvitationPage({
          csrfToken: session.data.csrfToken,
          token: token as string,
          email: open.invitation.email,
          role: open.invitation.role,
          hasAccount: open.hasAccount,
        }),
      );
    }),
  );
  router.post(
    '/convites/aceitar',
    route(async (req, res) => {
      const token = req.body.token as unknown;
      const password = textOf(req.body.password);
      const open = isTokenShaped(token) ? await openInvitation(deps.mail.dataSource, token) : null;
      if (!open) return sendPage(res, 400, invalidLinkPage('Este convite'));
      const page = (status: number, error: string) =>
        sendPage(
          res,
          status,
          acceptInvitationPage({
            csrfToken: sessions.current(res)!.data.csrfToken,
            token: token as string,
            email: open.invitation.email,
            role: open.invitation.role,
            hasAccount: open.hasAccount,
            error,
          }),
        );
      if (await overLimit(req.ip)) return page(429, TOO_MANY);
      const problem = open.hasAccount ? undefined : passwordProblem(password);
      if (problem) return page(422, problem);
      const outcome = await acceptInvitation(
        {
          dataSource: deps.mail.dataSource,
          attempts: deps.attempts,
          maxFailures: deps.maxFailures,
          lockSeconds: deps.lockSeconds,
        },
        { token: token as string, password },
        originOf(req),
      );
      if (outcome.kind === 'invalid') return sendPage(res, 400, invalidLinkPage('Este convite'));
      if (outcome.kind === 'wrong_password') return page(401, 'Senha incorreta.');
      if (outcome.kind === 'locked') return page(429, LOCKED);
      if (await hasSecondFactor(deps.mail.dataSource, outcome.userId)) {
        // As at sign-in: the password was right; the session is signed in only once the code is (/entrar/codigo).
        await sessions.start(res, {
          pendingSignIn: {
            userId: outcome.userId,
            businessId: outcome.businessId,
            since: new Date().toISOString(),
          },
        });
        return res.redirect(303, '/entrar/codigo');
      }
      await sessions.start(res, { userId: outcome.userId, businessId: outcome.businessId });
      res.redirect(303, '/pagamentos');
    }),
  );
  return router;
}
