import { randomBytes } from 'node:crypto';
import { Router, type Response } from 'express';
import type { Payment } from '@gateway/sdk';
import { paymentTimeline } from '../../application/payment-timeline';
import { parseBrlInput } from '../../domain/format';
import { startOfLocalDay } from '../../domain/local-date';
import { roleAllows } from '../../domain/roles';
import type { DataSource } from 'typeorm';
import { recordMemberAction } from '../audit';
import { memberOf, requirePermission, type Member } from '../member';
import { route, sendPage, textOf } from '../respond';
import { refusedOr } from '../api-refusal';
import {
  methodLabels,
  paymentPage,
  paymentsPage,
  paymentStatusLabels,
  type PaymentFilters,
} from '../views/payments';

const PAGE_SIZE = 25;

const isStatus = (value: string): value is Payment['status'] => value in paymentStatusLabels;
const isMethod = (value: string): value is Payment['method'] => value in methodLabels;

/** The list's filters as the query gives them; a date that is not a day is left out. */
function filtersOf(query: Record<string, unknown>): PaymentFilters {
  const status = textOf(query.status);
  const method = textOf(query.metodo);
  const from = textOf(query.de);
  const to = textOf(query.ate);
  return {
    ...(isStatus(status) ? { status } : {}),
    ...(isMethod(method) ? { method } : {}),
    ...(/^\d{4}-\d{2}-\d{2}$/.test(from) ? { from } : {}),
    ...(/^\d{4}-\d{2}-\d{2}$/.test(to) ? { to } : {}),
  };
}

async function showPayment(
  res: Response,
  member: Member,
  paymentId: string,
  extra: { status?: number; notice?: string; error?: string } = {},
): Promise<void> {
  const [payment, { entries, refunds }, receivedFunds] = await Promise.all([
    member.api.payments.get(paymentId),
    paymentTimeline(member.api, paymentId),
    member.api.payments.receivedFunds(paymentId, { limit: 100 }),
  ]);
  sendPage(
    res,
    extra.status ?? 200,
    paymentPage(member.viewer, {
      payment,
      refunds,
      receivedFunds: receivedFunds.data,
      timeline: entries,
      timeZone: member.business.timeZone,
      canRefund: roleAllows(member.role, 'refunds:write'),
      canCancel: roleAllows(member.role, 'payments:write'),
      canSimulate: member.business.environment === 'sandbox' && roleAllows(member.role, 'payments:write'),
      formKey: `dash_${randomBytes(16).toString('hex')}`,
      notice: extra.notice,
      error: extra.error,
    }),
  );
}

/** A form's own idempotency key, made when the page was drawn. */
const FORM_KEY = /^dash_[0-9a-f]{32}$/;

/** Pagamentos: the list (filters by status, method and days; search by id), a payment's page, its refund, its cancel. */
export function paymentRoutes(dataSource: DataSource): Router {
  const router = Router();
  router.get(
    '/pagamentos',
    requirePermission('payments:read'),
    route(async (req, res) => {
      const member = memberOf(res);
      const search = textOf(req.query.q).trim();
      // A search by id is that payment's page (not found there when it is not the business's).
      if (search) return res.redirect(303, `/pagamentos/${encodeURIComponent(search)}`);
      const filters = filtersOf(req.query);
      const after = textOf(req.query.depois);
      // The days are the business's: "from" at the start of its day, "to" up to the end of its day.
      const createdGte = filters.from ? startOfLocalDay(filters.from, member.business.timeZone) : null;
      const createdLt = filters.to ? startOfLocalDay(filters.to, member.business.timeZone, 1) : null;
      const page = await member.api.payments.list({
        limit: PAGE_SIZE,
        ...(filters.status ? { status: filters.status } : {}),
        ...(filters.method ? { method: filters.method } : {}),
        ...(createdGte ? { created_gte: createdGte } : {}),
        ...(createdLt ? { created_lt: createdLt } : {}),
        ...(after ? { starting_after: after } : {}),
      });
      sendPage(
        res,
        200,
        paymentsPage(member.viewer, {
          payments: page.data,
          filters,
          nextCursor: page.has_more ? page.data.at(-1)?.payment_id : undefined,
          timeZone: member.business.timeZone,
        }),
      );
    }),
  );
  router.get(
    '/pagamentos/:id',
    requirePermission('payments:read'),
    route(async (req, res) => {
      const notice =
        req.query.reembolso === 'solicitado'
          ? 'Reembolso solicitado.'
          : req.query.cancelado === '1'
            ? 'Pagamento cancelado.'
            : req.query.simulado === '1'
              ? 'Simulação enviada: a situação muda em instantes.'
              : undefined;
      await showPayment(res, memberOf(res), String(req.params.id), { notice });
    }),
  );
  router.post(
    '/pagamentos/:id/reembolsar',
    requirePermission('refunds:write'),
    route(async (req, res) => {
      const member = memberOf(res);
      const paymentId = String(req.params.id);
      const centavos = parseBrlInput(textOf(req.body.amount));
      if (centavos === null || centavos <= 0)
        return showPayment(res, member, paymentId, {
          status: 422,
          error: 'Informe o valor do reembolso em reais, por exemplo 12,50.',
        });
      const reason = textOf(req.body.reason).trim();
      // The form's own key: the same form sent twice (a double click, a resend) makes one refund.
      const idempotencyKey = textOf(req.body.idempotency_key);
      const outcome = await refusedOr(() =>
        member.api.refunds.create(
          paymentId,
          { amount: centavos, ...(reason ? { reason } : {}) },
          FORM_KEY.test(idempotencyKey) ? { idempotencyKey } : {},
        ),
      );
      // The public API's refusal (amount too large, payment not refundable...) is shown as it words it.
      if ('refused' in outcome)
        return showPayment(res, member, paymentId, {
          status: outcome.refused.status,
          error: outcome.refused.message,
        });
      await recordMemberAction(dataSource, req, member, {
        action: 'refund_requested',
        target: paymentId,
        details: { refund_id: outcome.ok.refund_id, amount_centavos: String(centavos) },
      });
      res.redirect(303, `/pagamentos/${encodeURIComponent(paymentId)}?reembolso=solicitado`);
    }),
  );
  // Sandbox only: the payment paid (or failed, or expired) as its rail would, so a merchant tries the whole flow here.
  router.post(
    '/pagamentos/:id/simular',
    requirePermission('payments:write'),
    route(async (req, res) => {
      const member = memberOf(res);
      const paymentId = String(req.params.id);
      if (member.business.environment !== 'sandbox')
        return showPayment(res, member, paymentId, { status: 403, error: 'Simulação só existe no sandbox.' });
      const outcome = textOf(req.body.outcome);
      if (outcome !== 'paid' && outcome !== 'failed' && outcome !== 'expired')
        return showPayment(res, member, paymentId, {
          status: 422,
          error: 'Escolha o resultado da simulação.',
        });
      const simulated = await refusedOr(() => member.api.sandbox.simulate(paymentId, { outcome }));
      if ('refused' in simulated)
        return showPayment(res, member, paymentId, {
          status: simulated.refused.status,
          error: simulated.refused.message,
        });
      await recordMemberAction(dataSource, req, member, {
        action: 'payment_simulated',
        target: paymentId,
        details: { outcome },
      });
      res.redirect(303, `/pagamentos/${encodeURIComponent(paymentId)}?simulado=1`);
    }),
  );
  router.post(
    '/pagamentos/:id/cancelar',
    requirePermission('payments:write'),
    route(async (req, res) => {
      const member = memberOf(res);
      const paymentId = String(req.params.id);
      const outcome = await refusedOr(() => member.api.payments.cancel(paymentId));
      // The public API's refusal (a payment no longer open) is shown as it words it.
      if ('refused' in outcome)
        return showPayment(res, member, paymentId, {
          status: outcome.refused.status,
          error: outcome.refused.message,
        });
      await recordMemberAction(dataSource, req, member, { action: 'payment_cancelled', target: paymentId });
      res.redirect(303, `/pagamentos/${encodeURIComponent(paymentId)}?cancelado=1`);
    }),
  );
  return router;
}
