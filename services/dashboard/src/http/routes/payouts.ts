import { randomBytes } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import type { DataSource } from 'typeorm';
import { refusedOr } from '../api-refusal';
import { setPayoutAccount } from '../../application/set-payout-account';
import type { SecondFactorDeps } from '../../application/verify-second-factor';
import { OperatorApiError, type GatewayAdmin } from '../../clients/gateway-admin';
import {
  isStatementMonth,
  monthOf,
  readPayoutAccountForm,
  readPayoutAmount,
} from '../../domain/payout-forms';
import { roleAllows } from '../../domain/roles';
import { findPayoutAccount, findUser } from '../../persistence';
import { memberOf, requirePermission, type Member } from '../member';
import { recordMemberAction } from '../audit';
import { route, sendPage, textOf } from '../respond';
import { secondFactorStateOf, stepUp } from '../step-up';
import { payoutAccountPage, payoutPage, payoutsPage, statementsPage } from '../views/payouts';

const PAGE_SIZE = 25;

export interface PayoutRouteDeps {
  admin: GatewayAdmin;
  dataSource: DataSource;
  secondFactor: SecondFactorDeps;
}

/** The public API's refusal of a request (a 4xx but not found), to show as it words it; anything else is thrown. */
async function showPayouts(
  req: Request,
  res: Response,
  deps: PayoutRouteDeps,
  member: Member,
  extra: { status?: number; notice?: string; error?: string; amount?: string } = {},
): Promise<void> {
  const after = textOf(req.query.depois);
  const [balance, page, secondFactor] = await Promise.all([
    member.api.balance.get(),
    member.api.payouts.list({ limit: PAGE_SIZE, ...(after ? { starting_after: after } : {}) }),
    secondFactorStateOf(deps.secondFactor, member),
  ]);
  sendPage(
    res,
    extra.status ?? 200,
    payoutsPage(member.viewer, {
      payouts: page.data,
      availableBrl: balance.available_brl,
      nextCursor: page.has_more ? page.data.at(-1)?.payout_id : undefined,
      timeZone: member.business.timeZone,
      canRequest: roleAllows(member.role, 'payouts:write'),
      secondFactor,
      // One key per form shown: a form sent twice (a double click, a resend) makes one payout.
      idempotencyKey: `dash_${randomBytes(16).toString('hex')}`,
      ...extra,
    }),
  );
}

async function showPayoutAccount(
  res: Response,
  deps: PayoutRouteDeps,
  member: Member,
  extra: { status?: number; notice?: string; error?: string; given?: Record<string, string> } = {},
): Promise<void> {
  const account = await findPayoutAccount(deps.dataSource.manager, member.business.id);
  const setter = account ? await findUser(deps.dataSource.manager, account.updatedBy) : null;
  sendPage(
    res,
    extra.status ?? 200,
    payoutAccountPage(member.viewer, {
      account: account && { ...account, updatedBy: setter?.email ?? '—' },
      timeZone: member.business.timeZone,
      canSet: roleAllows(member.role, 'payout_account:write'),
      secondFactor: await secondFactorStateOf(deps.secondFactor, member),
      ...extra,
    }),
  );
}

/**
 * Under Saldo: statements (a month's CSV, through the public API), payouts (list, detail, "Solicitar saque" through
 * the public API with an idempotency key) and the payout account (set by the owner through the operator API). Money
 * leaves only after the server's step-up: an owner without a second factor is sent to enrol, and whoever has one
 * confirms with a fresh code.
 */
export function payoutRoutes(deps: PayoutRouteDeps): Router {
  const router = Router();

  router.get(
    '/saldo/extratos',
    requirePermission('balance:read'),
    route(async (_req, res) => {
      sendPage(res, 200, statementsPage(memberOf(res).viewer, { month: monthOf(new Date()) }));
    }),
  );
  router.get(
    '/saldo/extratos/baixar',
    requirePermission('balance:read'),
    route(async (req, res) => {
      const member = memberOf(res);
      const month = textOf(req.query.mes);
      if (!isStatementMonth(month))
        return sendPage(
          res,
          422,
          statementsPage(member.viewer, {
            month: monthOf(new Date()),
            error: 'Escolha um mês, por exemplo 2026-11.',
          }),
        );
      const outcome = await refusedOr(() => member.api.statements.get(month));
      if ('refused' in outcome)
        return sendPage(
          res,
          outcome.refused.status,
          statementsPage(member.viewer, { month, error: outcome.refused.message }),
        );
      const csv = outcome.ok;
      res
        .status(200)
        .set({
          'cache-control': 'no-store',
          'content-disposition': `attachment; filename="extrato-${month}.csv"`,
        })
        .type('text/csv; charset=utf-8')
        .send(csv);
    }),
  );

  router.get(
    '/saldo/saques',
    requirePermission('payouts:read'),
    route(async (req, res) => {
      const notice = req.query.saque === 'solicitado' ? 'Saque solicitado.' : undefined;
      await showPayouts(req, res, deps, memberOf(res), { notice });
    }),
  );
  router.get(
    '/saldo/saques/:id',
    requirePermission('payouts:read'),
    route(async (req, res) => {
      const member = memberOf(res);
      const payout = await member.api.payouts.get(String(req.params.id));
      sendPage(res, 200, payoutPage(member.viewer, { payout, timeZone: member.business.timeZone }));
    }),
  );
  router.post(
    '/saldo/saques',
    requirePermission('payouts:write'),
    route(async (req, res) => {
      const member = memberOf(res);
      const amountText = textOf(req.body.amount);
      const amount = readPayoutAmount(amountText);
      if (!amount)
        return showPayouts(req, res, deps, member, {
          status: 422,
          amount: amountText,
          error:
            'Informe o valor do saque em reais, por exemplo 1.234,56, ou deixe em branco para sacar tudo.',
        });
      const refused = await stepUp(deps.secondFactor, member, req);
      if (refused)
        return showPayouts(req, res, deps, member, {
          status: refused.status,
          amount: amountText,
          error: refused.message,
        });
      const idempotencyKey = textOf(req.body.idempotency_key);
      const outcome = await refusedOr(() =>
        member.api.payouts.create(amount, {
          ...(/^dash_[0-9a-f]{32}$/.test(idempotencyKey) ? { idempotencyKey } : {}),
        }),
      );
      // The public API's refusal (more than available, no payout account, too small) is shown as it words it.
      if ('refused' in outcome)
        return showPayouts(req, res, deps, member, {
          status: outcome.refused.status,
          amount: amountText,
          error: outcome.refused.message,
        });
      const payout = outcome.ok;
      await recordMemberAction(deps.dataSource, req, member, {
        action: 'payout_requested',
        target: payout.payout_id,
        details: { amount_brl: String(payout.amount_brl) },
      });
      res.redirect(303, `/saldo/saques/${encodeURIComponent(payout.payout_id)}`);
    }),
  );

  router.get(
    '/saldo/conta',
    requirePermission('payouts:read'),
    route(async (_req, res) => showPayoutAccount(res, deps, memberOf(res))),
  );
  router.post(
    '/saldo/conta',
    requirePermission('payout_account:write'),
    route(async (req, res) => {
      const member = memberOf(res);
      const body = req.body as Record<string, unknown>;
      const given = {
        pix_key: textOf(body.pix_key),
        pix_key_type: textOf(body.pix_key_type),
        holder_document: textOf(body.holder_document),
      };
      const form = readPayoutAccountForm(body);
      if (!form.ok) return showPayoutAccount(res, deps, member, { status: 422, error: form.error, given });
      const refused = await stepUp(deps.secondFactor, member, req);
      if (refused)
        return showPayoutAccount(res, deps, member, {
          status: refused.status,
          error: refused.message,
          given,
        });
      try {
        await setPayoutAccount(deps, member.business, member.userId, form.value);
        await recordMemberAction(deps.dataSource, req, member, {
          action: 'payout_account_changed',
          target: member.business.id,
          details: { pix_key_type: form.value.pix_key_type, pix_key_end: form.value.pix_key.slice(-4) },
        });
      } catch (err) {
        // The operator API's refusal (a key not in its type's form, a document that is not one) as it words it.
        if (!(err instanceof OperatorApiError) || err.status !== 422) throw err;
        return showPayoutAccount(res, deps, member, { status: 422, error: err.message, given });
      }
      await showPayoutAccount(res, deps, member, { notice: 'Conta de saque salva.' });
    }),
  );
  return router;
}
