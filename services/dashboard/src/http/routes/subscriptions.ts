import { Router, type Response } from 'express';
import type { DataSource } from 'typeorm';
import { roleAllows } from '../../domain/roles';
import { refusedOr } from '../api-refusal';
import { recordMemberAction } from '../audit';
import { memberOf, requirePermission, type Member } from '../member';
import { route, sendPage, textOf } from '../respond';
import { errorPage } from '../views/other';
import {
  cancelSubscriptionPage,
  subscriptionPage,
  subscriptionsPage,
  subscriptionStatusLabels,
  type Subscription,
  type SubscriptionFilters,
} from '../views/subscriptions';

const PAGE_SIZE = 25;
/** The cycles a subscription's page lists (the API's page limit); older ones are in Pagamentos. */
const CYCLES_SHOWN = 100;

const isStatus = (value: string): value is Subscription['status'] => value in subscriptionStatusLabels;

/** The list's filters as the query gives them; an unknown status is left out, the customer goes to the API as typed. */
function filtersOf(query: Record<string, unknown>): SubscriptionFilters {
  const status = textOf(query.status);
  const customer = textOf(query.cliente).trim();
  return { ...(isStatus(status) ? { status } : {}), ...(customer ? { customer } : {}) };
}

/**
 * The subscription, or the page that says why not: not found (another business's, or none) through the error
 * handler; another refusal of the API (an id it does not accept) as the error page with the API's words.
 */
async function subscriptionOr(res: Response, member: Member, id: string): Promise<Subscription | null> {
  const read = await refusedOr(() => member.api.subscriptions.get(id));
  if ('ok' in read) return read.ok;
  sendPage(res, read.refused.status, errorPage(member.viewer, 'Pedido recusado', read.refused.message));
  return null;
}

async function showSubscription(
  res: Response,
  member: Member,
  subscriptionId: string,
  extra: { status?: number; notice?: string; error?: string } = {},
): Promise<void> {
  const subscription = await subscriptionOr(res, member, subscriptionId);
  if (!subscription) return;
  const cycles = await member.api.payments.list({
    subscription_id: subscription.subscription_id,
    limit: CYCLES_SHOWN,
  });
  sendPage(
    res,
    extra.status ?? 200,
    subscriptionPage(member.viewer, {
      subscription,
      // Newest first from the API; the page reads them by cycle.
      cycles: [...cycles.data].sort((a, b) => (a.cycle ?? 0) - (b.cycle ?? 0)),
      moreCycles: cycles.has_more,
      timeZone: member.business.timeZone,
      canCancel: roleAllows(member.role, 'payments:write'),
      notice: extra.notice,
      error: extra.error,
    }),
  );
}

/**
 * Assinaturas (Pix Automático): the list (filters by status and customer; search by id), a subscription's page with
 * its cycles, and its cancel behind a confirmation step. The role that may cancel a payment may cancel a subscription
 * (the public API's `payments:write`).
 */
export function subscriptionRoutes(dataSource: DataSource): Router {
  const router = Router();
  router.get(
    '/assinaturas',
    requirePermission('payments:read'),
    route(async (req, res) => {
      const member = memberOf(res);
      const search = textOf(req.query.q).trim();
      // A search by id is that subscription's page (not found there when it is not the business's).
      if (search) return res.redirect(303, `/assinaturas/${encodeURIComponent(search)}`);
      const filters = filtersOf(req.query);
      const after = textOf(req.query.depois);
      const listed = await refusedOr(async () =>
        member.api.subscriptions.list({
          limit: PAGE_SIZE,
          ...(filters.status ? { status: filters.status } : {}),
          ...(filters.customer ? { customer_id: filters.customer } : {}),
          ...(after ? { starting_after: after } : {}),
        }),
      );
      // The API's refusal of a filter (a customer id or a cursor it does not accept) is shown over an empty list.
      sendPage(
        res,
        'refused' in listed ? listed.refused.status : 200,
        subscriptionsPage(member.viewer, {
          subscriptions: 'ok' in listed ? listed.ok.data : [],
          filters,
          nextCursor:
            'ok' in listed && listed.ok.has_more ? listed.ok.data.at(-1)?.subscription_id : undefined,
          timeZone: member.business.timeZone,
          error: 'refused' in listed ? listed.refused.message : undefined,
        }),
      );
    }),
  );
  router.get(
    '/assinaturas/:id',
    requirePermission('payments:read'),
    route(async (req, res) => {
      const notice = req.query.cancelada === '1' ? 'Assinatura cancelada.' : undefined;
      await showSubscription(res, memberOf(res), String(req.params.id), { notice });
    }),
  );
  // The confirmation step: a GET changes nothing; the page's form (CSRF-checked) does.
  router.get(
    '/assinaturas/:id/cancelar',
    requirePermission('payments:write'),
    route(async (req, res) => {
      const member = memberOf(res);
      const subscription = await subscriptionOr(res, member, String(req.params.id));
      if (!subscription) return;
      sendPage(res, 200, cancelSubscriptionPage(member.viewer, { subscription }));
    }),
  );
  router.post(
    '/assinaturas/:id/cancelar',
    requirePermission('payments:write'),
    route(async (req, res) => {
      const member = memberOf(res);
      const subscriptionId = String(req.params.id);
      const outcome = await refusedOr(() => member.api.subscriptions.cancel(subscriptionId));
      // The public API's refusal (a subscription already cancelled or expired: INVALID_STATUS) as it words it.
      if ('refused' in outcome)
        return showSubscription(res, member, subscriptionId, {
          status: outcome.refused.status,
          error: outcome.refused.message,
        });
      await recordMemberAction(dataSource, req, member, {
        action: 'subscription_cancelled',
        target: subscriptionId,
      });
      res.redirect(303, `/assinaturas/${encodeURIComponent(subscriptionId)}?cancelada=1`);
    }),
  );
  return router;
}
