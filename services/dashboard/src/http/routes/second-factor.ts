import { Router, type Response } from 'express';
import { qrPng } from '@gateway/qr-png';
import { openSecret } from '@gateway/persistence';
import { confirmTotpEnrolment } from '../../application/confirm-totp-enrolment';
import { startTotpEnrolment } from '../../application/start-totp-enrolment';
import { verifySecondFactor, type SecondFactorDeps } from '../../application/verify-second-factor';
import { totpLink } from '../../domain/second-factor';
import { findSecondFactor, findUser, unusedRecoveryCodes } from '../../persistence';
import { memberOf, type Member } from '../member';
import { recordMemberAction } from '../audit';
import { route, sendPage, textOf } from '../respond';
import type { Sessions } from '../session';
import { secondFactorMessages } from '../step-up';
import { securityPage, signInCodePage, type SecurityOptions } from '../views/security';

/** How long after the password a sign-in's code may come. */
const PENDING_SIGN_IN_SECONDS = 300;

/** The second step of a sign-in, for a person with a second factor: the code, or a recovery code. */
export function signInCodeRoutes(deps: { sessions: Sessions; secondFactor: SecondFactorDeps }): Router {
  const router = Router();
  const { sessions } = deps;
  const pendingOf = (res: Response) => {
    const pending = sessions.current(res)?.data.pendingSignIn;
    if (!pending || Date.now() - Date.parse(pending.since) > PENDING_SIGN_IN_SECONDS * 1000) return undefined;
    return pending;
  };

  router.get(
    '/entrar/codigo',
    route(async (_req, res) => {
      if (!pendingOf(res)) return res.redirect(303, '/entrar');
      sendPage(res, 200, signInCodePage({ csrfToken: sessions.current(res)!.data.csrfToken }));
    }),
  );
  router.post(
    '/entrar/codigo',
    route(async (req, res) => {
      const pending = pendingOf(res);
      if (!pending) return res.redirect(303, '/entrar');
      const outcome = await verifySecondFactor(deps.secondFactor, {
        userId: pending.userId,
        code: textOf(req.body.code),
        clientAddress: req.ip ?? 'unknown',
        recovery: true,
      });
      if (outcome.kind === 'accepted' || outcome.kind === 'not_enrolled') {
        // A new id again: the signed-in session is not the one the password step had.
        if (pending.operator) {
          await sessions.start(res, { userId: pending.userId, operator: true });
          return res.redirect(303, '/operador');
        }
        await sessions.start(res, { userId: pending.userId, businessId: pending.businessId });
        return res.redirect(
          303,
          outcome.kind === 'accepted' && outcome.with === 'recovery_code'
            ? '/seguranca?aviso=recuperacao'
            : '/pagamentos',
        );
      }
      sendPage(
        res,
        outcome.kind === 'wrong_code' ? 401 : 429,
        signInCodePage({
          csrfToken: sessions.current(res)!.data.csrfToken,
          error: secondFactorMessages[outcome.kind],
        }),
      );
    }),
  );
  return router;
}

/** A person's second factor as the Segurança page shows it (off, being enrolled with its QR code, on). */
export async function securityStateOf(
  deps: SecondFactorDeps,
  person: { userId: string; email: string },
): Promise<SecurityOptions['state']> {
  const manager = deps.dataSource.manager;
  const factor = await findSecondFactor(manager, person.userId);
  if (factor?.confirmedAt)
    return {
      kind: 'on',
      since: factor.confirmedAt,
      recoveryCodesLeft: await unusedRecoveryCodes(manager, person.userId),
    };
  if (!factor) return { kind: 'off' };
  const secret = openSecret(factor.sealedSecret, deps.sealKey);
  const user = await findUser(manager, person.userId);
  const png = qrPng(totpLink(secret, user?.email ?? person.email), { scale: 5, margin: 4 });
  return { kind: 'enrolling', secret, qrDataUri: `data:image/png;base64,${png.toString('base64')}` };
}

async function showSecurity(
  res: Response,
  deps: SecondFactorDeps,
  member: Member,
  extra: { status?: number; recoveryCodes?: string[]; notice?: string; error?: string } = {},
): Promise<void> {
  const state = await securityStateOf(deps, { userId: member.userId, email: member.viewer.email });
  sendPage(
    res,
    extra.status ?? 200,
    securityPage(member.viewer, { timeZone: member.business.timeZone, state, ...extra }),
  );
}

/** Segurança: the person's second factor (enrol, confirm with a first code, recovery codes shown once). */
export function securityRoutes(deps: SecondFactorDeps): Router {
  const router = Router();
  router.get(
    '/seguranca',
    route(async (req, res) => {
      const notice =
        req.query.aviso === 'recuperacao'
          ? 'Você entrou com um código de recuperação: ele não vale mais.'
          : undefined;
      await showSecurity(res, deps, memberOf(res), { notice });
    }),
  );
  router.post(
    '/seguranca/autenticador',
    route(async (_req, res) => {
      await startTotpEnrolment(deps, memberOf(res).userId);
      res.redirect(303, '/seguranca');
    }),
  );
  router.post(
    '/seguranca/autenticador/confirmar',
    route(async (req, res) => {
      const member = memberOf(res);
      const outcome = await confirmTotpEnrolment(deps, {
        userId: member.userId,
        code: textOf(req.body.code),
        password: textOf(req.body.password),
      });
      if (outcome.kind === 'confirmed') {
        await recordMemberAction(deps.dataSource, req, member, {
          action: 'second_factor_enabled',
          target: member.userId,
        });
        return showSecurity(res, deps, member, {
          status: 201,
          recoveryCodes: outcome.recoveryCodes,
          notice: 'Verificação em duas etapas ativada.',
        });
      }
      if (outcome.kind === 'not_started') return res.redirect(303, '/seguranca');
      await showSecurity(res, deps, member, {
        status: outcome.kind === 'locked' ? 429 : 422,
        error: {
          wrong_code: 'Código incorreto. Digite o código que o aplicativo mostra agora.',
          wrong_password: 'Senha incorreta.',
          locked: secondFactorMessages.locked,
        }[outcome.kind],
      });
    }),
  );
  return router;
}
