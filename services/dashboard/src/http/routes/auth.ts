import { Router } from 'express';
import { signIn, type SignInDeps } from '../../application/sign-in';
import { signUp, type SignUpDeps } from '../../application/sign-up';
import { hasSecondFactor } from '../../application/verify-second-factor';
import { normaliseEmail, readSignUpForm } from '../../domain/sign-up-form';
import type { GatewayAdmin } from '../../clients/gateway-admin';
import type { Sessions } from '../session';
import { route, sendPage, textOf } from '../respond';
import { signInPage, signUpPage } from '../views/auth';
import { loadMember, type MemberDeps } from '../member';
import { showKeys } from './keys';
import type { Logger } from '@gateway/observability';
import { sendEmailVerification } from '../../application/send-email-verification';
import type { AccountMailDeps } from '../../application/shared/account-mail';
import { MailNotSent } from '../../clients/mailer';
import { originOf, recordMemberAction, recordSignIn } from '../audit';
import { recordAudit } from '../../application/shared/audit-trail';
import { findUser } from '../../persistence';

export interface AuthRouteDeps {
  sessions: Sessions;
  signUp: SignUpDeps;
  signIn: SignInDeps;
  admin: GatewayAdmin;
  members: MemberDeps;
  /** Self-serve sign-up is offered in the sandbox only. */
  signUpOpen: boolean;
  mail: AccountMailDeps;
  logger: Logger;
}

const signInMessages = {
  wrong_credentials: 'E-mail ou senha incorretos.',
  locked: 'Conta bloqueada temporariamente por excesso de tentativas. Tente de novo mais tarde.',
  too_many_attempts: 'Muitas tentativas a partir deste endereço. Aguarde um minuto.',
} as const;

/** Sign-up, sign-in and sign-out. */
export function authRoutes(deps: AuthRouteDeps): Router {
  const router = Router();
  const { sessions } = deps;

  router.get(
    '/entrar',
    route(async (req, res) => {
      const session = await sessions.ensure(res);
      if (session.data.userId) return res.redirect(303, session.data.operator ? '/operador' : '/pagamentos');
      const notice =
        req.query.aviso === 'senha-redefinida' ? 'Senha redefinida. Entre com a nova senha.' : undefined;
      sendPage(res, 200, signInPage({ csrfToken: session.data.csrfToken, signUp: deps.signUpOpen, notice }));
    }),
  );

  router.post(
    '/entrar',
    route(async (req, res) => {
      const email = normaliseEmail(req.body.email);
      const outcome = await signIn(deps.signIn, {
        email,
        password: textOf(req.body.password),
        clientAddress: req.ip ?? 'unknown',
      });
      await recordSignIn(deps.mail.dataSource, req, {
        email,
        ...(outcome.kind === 'signed_in'
          ? { userId: outcome.userId, businessId: outcome.businessId }
          : outcome.kind === 'operator_signed_in'
            ? { userId: outcome.userId, operator: true }
            : { refusal: outcome.kind }),
      });
      if (outcome.kind === 'operator_signed_in') {
        // The console needs the second factor: one who has it gives its code; one who has none is sent to enrol it.
        if (await hasSecondFactor(deps.signIn.dataSource, outcome.userId)) {
          await sessions.start(res, {
            pendingSignIn: { userId: outcome.userId, operator: true, since: new Date().toISOString() },
          });
          return res.redirect(303, '/entrar/codigo');
        }
        await sessions.start(res, { userId: outcome.userId, operator: true });
        return res.redirect(303, '/operador/seguranca');
      }
      if (outcome.kind !== 'signed_in') {
        const session = await sessions.ensure(res);
        const status = outcome.kind === 'wrong_credentials' ? 401 : 429;
        return sendPage(
          res,
          status,
          signInPage({
            csrfToken: session.data.csrfToken,
            email,
            error: signInMessages[outcome.kind],
            signUp: deps.signUpOpen,
          }),
        );
      }
      if (await hasSecondFactor(deps.signIn.dataSource, outcome.userId)) {
        // The password was right; the session is signed in only once the second factor's code is (/entrar/codigo).
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

  router.get(
    '/cadastro',
    route(async (_req, res) => {
      if (!deps.signUpOpen) return res.redirect(303, '/entrar');
      const session = await sessions.ensure(res);
      sendPage(res, 200, signUpPage({ csrfToken: session.data.csrfToken }));
    }),
  );

  router.post(
    '/cadastro',
    route(async (req, res) => {
      if (!deps.signUpOpen) return res.redirect(303, '/entrar');
      const form = readSignUpForm(req.body as Record<string, unknown>);
      const csrfToken = sessions.current(res)!.data.csrfToken;
      // Sign-ups count against the client address's sign-in attempts: each one creates a business.
      const attempts = await deps.signIn.attempts.countAttempt(req.ip ?? 'unknown', new Date());
      if (attempts > deps.signIn.attemptsPerMinute)
        return sendPage(
          res,
          429,
          signUpPage({
            csrfToken,
            given: form.ok ? { companyName: form.value.companyName, email: form.value.email } : form.given,
            error: signInMessages.too_many_attempts,
          }),
        );
      if (!form.ok)
        return sendPage(res, 422, signUpPage({ csrfToken, given: form.given, errors: form.errors }));
      const outcome = await signUp(deps.signUp, form.value);
      if (outcome.kind === 'email_taken')
        return sendPage(
          res,
          409,
          signUpPage({
            csrfToken,
            given: { companyName: form.value.companyName, email: form.value.email },
            error: 'Já existe uma conta com este e-mail. Entre com ele.',
          }),
        );
      const session = await sessions.start(res, { userId: outcome.userId, businessId: outcome.businessId });
      const member = await loadMember(deps.members, session);
      if (!member) throw new Error('the business just signed up has no member');
      await recordMemberAction(deps.mail.dataSource, req, member, {
        action: 'sign_up',
        target: form.value.companyName,
      });
      // The verification mail: a relay that fails leaves the account as it is (the page offers to send it again).
      await sendEmailVerification(
        deps.mail,
        { userId: outcome.userId, email: form.value.email, businessId: outcome.businessId },
        originOf(req),
      ).catch((err: unknown) => {
        if (!(err instanceof MailNotSent)) throw err;
        deps.logger.warn({ err: { message: err.message } }, 'verification mail not sent');
      });
      await showKeys(res, deps.admin, member, {
        status: 201,
        newKey: outcome.apiKey,
        notice: 'Conta criada. Esta é a chave de API do sandbox da sua empresa: guarde-a agora.',
      });
    }),
  );

  router.post(
    '/sair',
    route(async (req, res) => {
      const session = sessions.current(res);
      const member = await loadMember(deps.members, session);
      if (member)
        await recordMemberAction(deps.mail.dataSource, req, member, {
          action: 'sign_out',
          target: member.viewer.email,
        });
      else if (session?.data.operator && session.data.userId) {
        // An operator's, kept with no business as their other entries are.
        const user = await findUser(deps.mail.dataSource.manager, session.data.userId);
        if (user)
          await recordAudit(deps.mail.dataSource.manager, {
            businessId: null,
            actor: { userId: user.id, email: user.email },
            action: 'sign_out',
            target: user.email,
            origin: originOf(req),
          });
      }
      await sessions.end(res);
      res.redirect(303, '/entrar');
    }),
  );

  return router;
}
