import { Router, type Response } from 'express';
import { isGatewayError, type Payment } from '@gateway/sdk';
import { paymentTimeline } from '../../application/payment-timeline';
import { parseBrlInput } from '../../domain/format';
import { roleAllows } from '../../domain/roles';
import type { DataSource } from 'typeorm';
import { recordMemberAction } from '../audit';
import { memberOf, requirePermission, type Member } from '../member';
import { route, sendPage, textOf } from '../respond';
import { paymentPage, paymentsPage, paymentStatusLabels } from '../views/payments';

const PAGE_SIZE = 25;

const isStatus = (value: string): value is Payment['status'] => value in paymentStatusLabels;

async function showPayment(
  res: Response,
  member: Member,
  paymentId: string,
  extra: { status?: number; notice?: string; error?: string } = {},
): Promise<void> {
  const [payment, { entries, refunds }] = await Promise.all([
    member.api.payments.get(paymentId),
    paymentTimeline(member.api, paymentId),
  ]);
  sendPage(
    res,
    extra.status ?? 200,
    paymentPage(member.viewer, {
      payment,
      refunds,
      timeline: entries,
      timeZone: member.business.timeZone,
      canRefund: roleAllows(member.role, 'refunds:write'),
      notice: extra.notice,
      error: extra.error,
    }),
  );
}

/** Pagamentos: the list (status filter, search by id), a payment's page, its refund. */
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
      const status = textOf(req.query.status);
      const after = textOf(req.query.depois);
      const page = await member.api.payments.list({
        limit: PAGE_SIZE,
        ...(isStatus(status) ? { status } : {}),
        ...(after ? { starting_after: after } : {}),
      });
      sendPage(
        res,
        200,
        paymentsPage(member.viewer, {
          payments: page.data,
          status: isStatus(status) ? status : undefined,
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
      const notice = req.query.reembolso === 'solicitado' ? 'Reembolso solicitado.' : undefined;
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
      try {
        const refund = await member.api.refunds.create(paymentId, {
          amount: centavos,
          ...(reason ? { reason } : {}),
        });
        await recordMemberAction(dataSource, req, member, {
          action: 'refund_requested',
          target: paymentId,
          details: { refund_id: refund.refund_id, amount_centavos: String(centavos) },
        });
      } catch (err) {
        // The public API's refusal (amount too large, payment not refundable...) is shown as it words it.
        if (!isGatewayError(err) || err.status === 404 || err.status >= 500) throw err;
        return showPayment(res, member, paymentId, { status: err.status, error: err.message });
      }
      res.redirect(303, `/pagamentos/${encodeURIComponent(paymentId)}?reembolso=solicitado`);
    }),
  );
  return router;
}
