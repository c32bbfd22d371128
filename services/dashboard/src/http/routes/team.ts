import { Router, type Response } from 'express';
import type { DataSource } from 'typeorm';
import { changeMemberRole } from '../../application/change-member-role';
import { inviteMember } from '../../application/invite-member';
import { removeMember } from '../../application/remove-member';
import { revokeInvitation } from '../../application/revoke-invitation';
import { sendEmailVerification } from '../../application/send-email-verification';
import type { AccountMailDeps } from '../../application/shared/account-mail';
import { MailNotSent } from '../../clients/mailer';
import {
  auditEntriesOf,
  pendingInvitationsOf,
  teamMembersOf,
  type LoginAttemptStore,
} from '../../persistence';
import { isRole, roleAllows } from '../../domain/roles';
import { isEmail, normaliseEmail } from '../../domain/sign-up-form';
import type { TeamRefusal } from '../../domain/team-rules';
import { actorOf, originOf } from '../audit';
import { memberOf, requirePermission, type Member } from '../member';
import { route, sendPage, textOf } from '../respond';
import { auditPage } from '../views/audit';
import { errorPage } from '../views/other';
import { teamPage } from '../views/team';

export interface TeamRouteDeps {
  mail: AccountMailDeps;
  attempts: LoginAttemptStore;
  attemptsPerMinute: number;
}

/** How the Auditoria page pages: this many entries, then a link to older ones. */
const AUDIT_PAGE_SIZE = 50;

const refusals: Record<TeamRefusal | 'not_found' | 'unverified' | 'already_member', [number, string]> = {
  not_found: [404, 'Pessoa ou convite não encontrado nesta empresa.'],
  not_allowed: [403, 'O seu papel nesta empresa não permite esta ação.'],
  owner_only: [403, 'Só um proprietário pode tornar alguém proprietário ou mudar um proprietário.'],
  last_owner: [409, 'A empresa precisa de pelo menos um proprietário.'],
  unverified: [403, 'Verifique o seu e-mail antes de convidar pessoas.'],
  already_member: [409, 'Esta pessoa já faz parte da equipe.'],
};

/** Equipe (the team, invitations, roles), Auditoria, and the verification mail sent again. */
export function teamRoutes(dataSource: DataSource, deps: TeamRouteDeps): Router {
  const router = Router();

  const showTeam = async (
    res: Response,
    member: Member,
    extra: { status?: number; notice?: string; error?: string } = {},
  ): Promise<void> => {
    const [team, invitations] = await Promise.all([
      teamMembersOf(dataSource.manager, member.business.id),
      pendingInvitationsOf(dataSource.manager, member.business.id, new Date()),
    ]);
    sendPage(
      res,
      extra.status ?? 200,
      teamPage(member.viewer, {
        team,
        invitations,
        timeZone: member.business.timeZone,
        canManage: roleAllows(member.role, 'team:write'),
        ...extra,
      }),
    );
  };
  const refuse = (res: Response, member: Member, reason: keyof typeof refusals) => {
    const [status, error] = refusals[reason];
    return showTeam(res, member, { status, error });
  };

  router.get(
    '/equipe',
    route(async (_req, res) => showTeam(res, memberOf(res))),
  );
  router.post(
    '/equipe/convites',
    requirePermission('team:write'),
    route(async (req, res) => {
      const member = memberOf(res);
      const email = normaliseEmail(req.body.email);
      const role = req.body.role as unknown;
      if (!isEmail(email) || !isRole(role))
        return showTeam(res, member, { status: 422, error: 'Informe um e-mail válido e um papel.' });
      let outcome;
      try {
        outcome = await inviteMember(
          { ...deps.mail, businessName: member.business.name },
          actorOf(member),
          { email, role },
          originOf(req),
        );
      } catch (err) {
        if (!(err instanceof MailNotSent)) throw err;
        return showTeam(res, member, {
          status: 502,
          error: 'O convite foi criado, mas o e-mail não pôde ser enviado. Revogue-o e convide de novo.',
        });
      }
      if (outcome.kind === 'refused') return refuse(res, member, outcome.reason);
      await showTeam(res, member, { status: 201, notice: `Convite enviado para ${email}.` });
    }),
  );
  router.post(
    '/equipe/convites/:id/revogar',
    requirePermission('team:write'),
    route(async (req, res) => {
      const member = memberOf(res);
      const outcome = await revokeInvitation(
        dataSource,
        actorOf(member),
        String(req.params.id),
        originOf(req),
      );
      if (outcome !== 'revoked') return refuse(res, member, outcome);
      await showTeam(res, member, { notice: 'Convite revogado.' });
    }),
  );
  router.post(
    '/equipe/membros/:userId/papel',
    requirePermission('team:write'),
    route(async (req, res) => {
      const member = memberOf(res);
      const role = req.body.role as unknown;
      if (!isRole(role)) return showTeam(res, member, { status: 422, error: 'Escolha um papel.' });
      const outcome = await changeMemberRole(
        dataSource,
        actorOf(member),
        { userId: String(req.params.userId), role },
        originOf(req),
      );
      if (outcome !== 'changed') return refuse(res, member, outcome);
      // Whoever changed their own role sees the team as the new role allows.
      if (String(req.params.userId) === member.userId) return res.redirect(303, '/equipe');
      await showTeam(res, member, { notice: 'Papel alterado.' });
    }),
  );
  router.post(
    '/equipe/membros/:userId/remover',
    requirePermission('team:write'),
    route(async (req, res) => {
      const member = memberOf(res);
      const outcome = await removeMember(
        dataSource,
        actorOf(member),
        String(req.params.userId),
        originOf(req),
      );
      if (outcome !== 'removed') return refuse(res, member, outcome);
      if (String(req.params.userId) === member.userId) return res.redirect(303, '/entrar');
      await showTeam(res, member, { notice: 'Pessoa removida da equipe.' });
    }),
  );

  router.get(
    '/auditoria',
    requirePermission('audit:read'),
    route(async (req, res) => {
      const member = memberOf(res);
      const before = textOf(req.query.antes);
      const entries = await auditEntriesOf(dataSource.manager, member.business.id, {
        limit: AUDIT_PAGE_SIZE + 1,
        ...(/^\d{1,18}$/.test(before) ? { before } : {}),
      });
      const page = entries.slice(0, AUDIT_PAGE_SIZE);
      sendPage(
        res,
        200,
        auditPage(member.viewer, {
          entries: page,
          timeZone: member.business.timeZone,
          olderCursor: entries.length > AUDIT_PAGE_SIZE ? page.at(-1)?.id : undefined,
        }),
      );
    }),
  );

  router.post(
    '/verificar-email/reenviar',
    route(async (req, res) => {
      const member = memberOf(res);
      if (member.viewer.emailVerified)
        return sendPage(
          res,
          200,
          errorPage(member.viewer, 'E-mail verificado', 'Seu e-mail já está verificado.'),
        );
      if ((await deps.attempts.countAttempt(req.ip ?? 'unknown', new Date())) > deps.attemptsPerMinute)
        return sendPage(
          res,
          429,
          errorPage(member.viewer, 'Muitas tentativas', 'Aguarde um minuto e tente de novo.'),
        );
      await sendEmailVerification(
        deps.mail,
        { userId: member.userId, email: member.viewer.email, businessId: member.business.id },
        originOf(req),
      );
      sendPage(
        res,
        200,
        errorPage(
          member.viewer,
          'E-mail enviado',
          `Enviamos um novo link de verificação para ${member.viewer.email}.`,
        ),
      );
    }),
  );
  return router;
}
