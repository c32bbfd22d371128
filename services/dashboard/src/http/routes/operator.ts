import { Router, type Request, type Response } from 'express';
import type { DataSource } from 'typeorm';
import { acceptOperatorInvitation } from '../../application/accept-operator-invitation';
import { inviteOperator } from '../../application/invite-operator';
import { setPayoutAccount } from '../../application/set-payout-account';
import type { AccountMailDeps } from '../../application/shared/account-mail';
import { startTotpEnrolment } from '../../application/start-totp-enrolment';
import { confirmTotpEnrolment } from '../../application/confirm-totp-enrolment';
import type { SecondFactorDeps } from '../../application/verify-second-factor';
import { isOperatorRefusal, OperatorApiError, type GatewayAdmin } from '../../clients/gateway-admin';
import { MailNotSent } from '../../clients/mailer';
import { hashToken, isTokenShaped } from '../../domain/one-time-token';
import { feeRuleText, readFeeRuleForm } from '../../domain/operator-rules';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../domain/password';
import { pixKeyHint, pixKeyTypeLabels, readPayoutAccountForm } from '../../domain/payout-forms';
import { isEmail, normaliseEmail } from '../../domain/sign-up-form';
import { DEFAULT_TIME_ZONE } from '../../domain/format';
import {
  findBusiness,
  operatorEntriesAbout,
  operatorsList,
  peekAccountToken,
  platformAuditEntries,
} from '../../persistence';
import { originOf } from '../audit';
import { operatorOf, recordOperatorAction, type Operator } from '../operator';
import { route, sendPage, textOf } from '../respond';
import type { Sessions } from '../session';
import { secondFactorMessages } from '../step-up';
import { invalidLinkPage } from '../views/account';
import { errorPage } from '../views/other';
import {
  businessesPage,
  businessPage,
  operatorAuditPage,
  operatorInvitationPage,
  operatorsPage,
  parkedPage,
  reconciliationPage,
  reconciliationsPage,
  type FeeFormState,
} from '../views/operator';
import { operatorPage } from '../views/operator-layout';
import { securityContent } from '../views/security';
import { securityStateOf } from './second-factor';

const PAGE = 25;
const AUDIT_PAGE = 50;
const INVITATION_LINK = 'Este link de convite de operador';

/** The operator's invitation link: the password is created there, then the console asks for the second factor. */
export function operatorInvitationRoutes(deps: {
  sessions: Sessions;
  dataSource: DataSource;
  attempts: { countAttempt(address: string, now: Date): Promise<number> };
  attemptsPerMinute: number;
}): Router {
  const router = Router();
  const { sessions } = deps;
  router.get(
    '/operador/convite',
    route(async (req, res) => {
      const token = req.query.token;
      if (
        !isTokenShaped(token) ||
        !(await peekAccountToken(
          deps.dataSource.manager,
          hashToken(token),
          'operator_invitation',
          new Date(),
        ))
      )
        return sendPage(res, 400, invalidLinkPage(INVITATION_LINK));
      const session = await sessions.ensure(res);
      sendPage(res, 200, operatorInvitationPage({ csrfToken: session.data.csrfToken, token }));
    }),
  );
  router.post(
    '/operador/convite',
    route(async (req, res) => {
      const token = req.body.token as unknown;
      const password = textOf(req.body.password);
      if (!isTokenShaped(token)) return sendPage(res, 400, invalidLinkPage(INVITATION_LINK));
      const csrfToken = sessions.current(res)!.data.csrfToken;
      if ((await deps.attempts.countAttempt(req.ip ?? 'unknown', new Date())) > deps.attemptsPerMinute)
        return sendPage(
          res,
          429,
          operatorInvitationPage({ csrfToken, token, error: secondFactorMessages.too_many_attempts }),
        );
      if (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH)
        return sendPage(
          res,
          422,
          operatorInvitationPage({
            csrfToken,
            token,
            error: `A senha precisa de ${PASSWORD_MIN_LENGTH} a ${PASSWORD_MAX_LENGTH} caracteres.`,
          }),
        );
      const outcome = await acceptOperatorInvitation(deps.dataSource, { token, password }, originOf(req));
      if (outcome.kind === 'invalid') return sendPage(res, 400, invalidLinkPage(INVITATION_LINK));
      // Signed in at once, with the console's one open page: enrolling the second factor.
      await sessions.start(res, { userId: outcome.userId, operator: true });
      res.redirect(303, '/operador/seguranca');
    }),
  );
  return router;
}

export interface OperatorRouteDeps {
  dataSource: DataSource;
  admin: GatewayAdmin;
  mail: AccountMailDeps;
  secondFactor: SecondFactorDeps;
}

/** The operator API's refusal of what was asked (422 and the like), as it words it; anything else is thrown on. */
async function refusedByOperatorApi<T>(
  action: () => Promise<T>,
): Promise<{ ok: T } | { refused: { status: number; message: string } }> {
  try {
    return { ok: await action() };
  } catch (err) {
    if (isOperatorRefusal(err)) return { refused: { status: err.status, message: err.message } };
    throw err;
  }
}

/** A business the operator API does not know (or an id that cannot be one) is the console's 404. */
async function businessOr404(deps: OperatorRouteDeps, res: Response, businessId: string) {
  try {
    return await deps.admin.getBusiness(businessId);
  } catch (err) {
    if (err instanceof OperatorApiError && (err.status === 404 || err.status === 422)) {
      sendPage(res, 404, errorPage(undefined, 'Não encontrado', 'Esta empresa não existe.'));
      return null;
    }
    throw err;
  }
}

/** The console (/operador), behind requireOperator: businesses, parked messages, reconciliation, operators, audit. */
export function operatorRoutes(deps: OperatorRouteDeps): Router {
  const router = Router();
  const { admin, dataSource } = deps;

  router.get('/', (_req, res) => res.redirect(303, '/operador/empresas'));

  // Segurança: the second factor the console requires (the same enrolment as the business app's).
  const showSecurity = async (
    res: Response,
    operator: Operator,
    extra: { status?: number; recoveryCodes?: string[]; notice?: string; error?: string } = {},
  ) => {
    const state = await securityStateOf(deps.secondFactor, {
      userId: operator.userId,
      email: operator.viewer.email,
    });
    const notice =
      extra.notice ??
      (state.kind === 'on'
        ? undefined
        : 'O console exige a verificação em duas etapas: ative-a para continuar.');
    sendPage(
      res,
      extra.status ?? 200,
      operatorPage(
        operator.viewer,
        '/operador/seguranca',
        'Segurança',
        securityContent(
          operator.viewer.csrfToken,
          { timeZone: DEFAULT_TIME_ZONE, state, ...extra, notice },
          '/operador/seguranca',
        ),
      ),
    );
  };
  router.get(
    '/seguranca',
    route(async (_req, res) => showSecurity(res, operatorOf(res))),
  );
  router.post(
    '/seguranca/autenticador',
    route(async (_req, res) => {
      await startTotpEnrolment(deps.secondFactor, operatorOf(res).userId);
      res.redirect(303, '/operador/seguranca');
    }),
  );
  router.post(
    '/seguranca/autenticador/confirmar',
    route(async (req, res) => {
      const operator = operatorOf(res);
      const outcome = await confirmTotpEnrolment(deps.secondFactor, {
        userId: operator.userId,
        code: textOf(req.body.code),
        password: textOf(req.body.password),
      });
      if (outcome.kind === 'confirmed') {
        await recordOperatorAction(dataSource, req, operator, {
          action: 'second_factor_enabled',
          target: operator.viewer.email,
        });
        return showSecurity(res, operator, {
          status: 201,
          recoveryCodes: outcome.recoveryCodes,
          notice: 'Verificação em duas etapas ativada. O console está liberado.',
        });
      }
      if (outcome.kind === 'not_started') return res.redirect(303, '/operador/seguranca');
      await showSecurity(res, operator, {
        status: outcome.kind === 'locked' ? 429 : 422,
        error: {
          wrong_code: 'Código incorreto. Digite o código que o aplicativo mostra agora.',
          wrong_password: 'Senha incorreta.',
          locked: secondFactorMessages.locked,
        }[outcome.kind],
      });
    }),
  );

  // Empresas.
  router.get(
    '/empresas',
    route(async (req, res) => {
      const after = textOf(req.query.depois);
      const page = await refusedByOperatorApi(() =>
        admin.listBusinesses({ limit: PAGE, ...(after ? { startingAfter: after } : {}) }),
      );
      if ('refused' in page)
        return sendPage(res, 400, errorPage(undefined, 'Página inválida', page.refused.message));
      sendPage(
        res,
        200,
        businessesPage(operatorOf(res).viewer, {
          businesses: page.ok.data,
          nextCursor: page.ok.has_more ? page.ok.data.at(-1)?.business_id : undefined,
        }),
      );
    }),
  );

  const showBusiness = async (
    req: Request,
    res: Response,
    extra: Omit<Parameters<typeof businessPage>[1], 'business' | 'feeChanges' | 'payoutChanges'> & {
      status?: number;
    } = {},
  ) => {
    const business = await businessOr404(deps, res, req.params.businessId!);
    if (!business) return;
    const entries = await operatorEntriesAbout(dataSource.manager, business.business_id, 50);
    const { status, ...rest } = extra;
    sendPage(
      res,
      status ?? 200,
      businessPage(operatorOf(res).viewer, {
        business,
        feeChanges: entries.filter((entry) => entry.action === 'fee_rule_changed'),
        payoutChanges: entries.filter((entry) => entry.action === 'payout_account_changed'),
        ...rest,
      }),
    );
  };
  router.get(
    '/empresas/:businessId',
    route(async (req, res) => showBusiness(req, res)),
  );
  router.post(
    '/empresas/:businessId/taxas/:method',
    route(async (req, res) => {
      const method = req.params.method;
      if (method !== 'pix' && method !== 'crypto')
        return sendPage(
          res,
          404,
          errorPage(undefined, 'Não encontrado', 'Método de pagamento desconhecido.'),
        );
      const given = { percent: textOf(req.body.percent), fixed: textOf(req.body.fixed) };
      const form = readFeeRuleForm(given.percent, given.fixed);
      if (!form.ok)
        return showBusiness(req, res, { status: 422, fee: { method, given, errors: form.errors } });
      const business = await businessOr404(deps, res, req.params.businessId!);
      if (!business) return;
      const set = await refusedByOperatorApi(() =>
        admin.setFeeRule(business.business_id, method, {
          percent_bps: form.value.percentBps,
          fixed_centavos: form.value.fixedCentavos,
        }),
      );
      if ('refused' in set) {
        const fee: FeeFormState = { method, given, errors: {} };
        return showBusiness(req, res, { status: set.refused.status, error: set.refused.message, fee });
      }
      const rule = feeRuleText({ percentBps: set.ok.percent_bps, fixedCentavos: set.ok.fixed_centavos });
      await recordOperatorAction(dataSource, req, operatorOf(res), {
        action: 'fee_rule_changed',
        target: business.business_id,
        details: { business: business.name, method, rule },
      });
      await showBusiness(req, res, {
        notice: `Taxa ${method === 'pix' ? 'PIX' : 'Cripto'} de ${business.name} salva: ${rule}.`,
      });
    }),
  );
  router.post(
    '/empresas/:businessId/conta-de-saque',
    route(async (req, res) => {
      const body = req.body as Record<string, unknown>;
      const payoutGiven = {
        pix_key: textOf(body.pix_key),
        pix_key_type: textOf(body.pix_key_type),
        holder_document: textOf(body.holder_document),
      };
      const form = readPayoutAccountForm(body);
      if (!form.ok) return showBusiness(req, res, { status: 422, error: form.error, payoutGiven });
      const business = await businessOr404(deps, res, req.params.businessId!);
      if (!business) return;
      const operator = operatorOf(res);
      // Through the operator API; the business's own page shows it too when the dashboard knows the business.
      const known = await findBusiness(dataSource.manager, business.business_id);
      const set = await refusedByOperatorApi(async () => {
        if (known) await setPayoutAccount({ admin, dataSource }, known, operator.userId, form.value);
        else await admin.setPayoutAccount(business.business_id, form.value);
      });
      if ('refused' in set)
        return showBusiness(req, res, {
          status: set.refused.status,
          error: set.refused.message,
          payoutGiven,
        });
      await recordOperatorAction(dataSource, req, operator, {
        action: 'payout_account_changed',
        target: business.business_id,
        details: {
          business: business.name,
          type: pixKeyTypeLabels[form.value.pix_key_type],
          key: pixKeyHint(form.value.pix_key),
        },
      });
      await showBusiness(req, res, { notice: `Conta de saque de ${business.name} salva.` });
    }),
  );

  // Mensagens estacionadas.
  router.get(
    '/mensagens',
    route(async (_req, res) => {
      sendPage(res, 200, parkedPage(operatorOf(res).viewer, { parked: await admin.listParkedMessages() }));
    }),
  );
  router.post(
    '/mensagens/reenviar',
    route(async (req, res) => {
      const queue = textOf(req.body.queue) || undefined;
      const operator = operatorOf(res);
      const moved = await refusedByOperatorApi(() => admin.redriveParkedMessages(queue));
      if ('refused' in moved)
        return sendPage(
          res,
          moved.refused.status,
          parkedPage(operator.viewer, {
            parked: await admin.listParkedMessages(),
            error: moved.refused.message,
          }),
        );
      await recordOperatorAction(dataSource, req, operator, {
        action: 'parked_messages_redriven',
        target: queue ?? 'todas as filas',
        details: { redriven: String(moved.ok.total_redriven) },
      });
      sendPage(
        res,
        200,
        parkedPage(operator.viewer, {
          parked: await admin.listParkedMessages(),
          notice: `${moved.ok.total_redriven} mensagem(ns) reenviada(s) às filas.`,
        }),
      );
    }),
  );

  // Conciliação.
  const showReconciliations = async (
    req: Request,
    res: Response,
    extra: { status?: number; error?: string; from?: string } = {},
  ) => {
    const after = textOf(req.query.depois);
    const page = await admin.listReconciliations({ limit: PAGE, ...(after ? { startingAfter: after } : {}) });
    sendPage(
      res,
      extra.status ?? 200,
      reconciliationsPage(operatorOf(res).viewer, {
        runs: page.data,
        nextCursor: page.has_more ? page.data.at(-1)?.id : undefined,
        error: extra.error,
        from: extra.from,
      }),
    );
  };
  router.get(
    '/conciliacao',
    route(async (req, res) => showReconciliations(req, res)),
  );
  router.post(
    '/conciliacao',
    route(async (req, res) => {
      const from = textOf(req.body.from).trim();
      const operator = operatorOf(res);
      const run = await refusedByOperatorApi(() => admin.runReconciliation(from || undefined));
      if ('refused' in run)
        return showReconciliations(req, res, {
          status: run.refused.status,
          error: run.refused.message,
          from,
        });
      await recordOperatorAction(dataSource, req, operator, {
        action: 'reconciliation_run',
        target: run.ok.id,
        details: { status: run.ok.status, differences: String(run.ok.difference_count) },
      });
      sendPage(
        res,
        201,
        reconciliationPage(operator.viewer, { run: run.ok, notice: 'Conciliação executada.' }),
      );
    }),
  );
  router.get(
    '/conciliacao/:reconciliationId',
    route(async (req, res) => {
      try {
        const run = await admin.getReconciliation(req.params.reconciliationId!);
        sendPage(res, 200, reconciliationPage(operatorOf(res).viewer, { run }));
      } catch (err) {
        if (!(err instanceof OperatorApiError) || (err.status !== 404 && err.status !== 422)) throw err;
        sendPage(res, 404, errorPage(undefined, 'Não encontrado', 'Esta conciliação não existe.'));
      }
    }),
  );

  // Operadores.
  const showOperators = async (
    res: Response,
    extra: { status?: number; email?: string; notice?: string; error?: string } = {},
  ) => {
    const { status, ...rest } = extra;
    sendPage(
      res,
      status ?? 200,
      operatorsPage(operatorOf(res).viewer, { operators: await operatorsList(dataSource.manager), ...rest }),
    );
  };
  router.get(
    '/operadores',
    route(async (_req, res) => showOperators(res)),
  );
  router.post(
    '/operadores',
    route(async (req, res) => {
      const email = normaliseEmail(req.body.email);
      if (!isEmail(email))
        return showOperators(res, { status: 422, email, error: 'Informe um e-mail válido.' });
      const operator = operatorOf(res);
      try {
        const outcome = await inviteOperator(
          deps.mail,
          { email, invitedBy: { userId: operator.userId, email: operator.viewer.email } },
          originOf(req),
        );
        if (outcome.kind === 'refused')
          return showOperators(res, {
            status: 409,
            email,
            error:
              outcome.reason === 'member'
                ? 'Este e-mail é de uma conta de empresa: um operador usa uma conta só sua.'
                : 'Esta pessoa já é operadora.',
          });
      } catch (err) {
        if (!(err instanceof MailNotSent)) throw err;
        return showOperators(res, {
          status: 502,
          email,
          error: 'O convite foi registrado, mas o e-mail não foi enviado. Tente de novo.',
        });
      }
      await showOperators(res, { status: 201, notice: `Convite enviado para ${email}.` });
    }),
  );

  // Auditoria.
  router.get(
    '/auditoria',
    route(async (req, res) => {
      const before = textOf(req.query.antes);
      const entries = await platformAuditEntries(dataSource.manager, {
        limit: AUDIT_PAGE,
        ...(/^\d{1,18}$/.test(before) ? { before } : {}),
      });
      sendPage(
        res,
        200,
        operatorAuditPage(operatorOf(res).viewer, {
          entries,
          olderCursor: entries.length === AUDIT_PAGE ? entries.at(-1)?.id : undefined,
        }),
      );
    }),
  );
  return router;
}
