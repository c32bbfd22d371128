import { Router, type Response } from 'express';
import { webhookEventNames, type WebhookEventName } from '@gateway/contracts';
import type { DataSource } from 'typeorm';
import { roleAllows } from '../../domain/roles';
import { refusedOr } from '../api-refusal';
import { recordMemberAction } from '../audit';
import { memberOf, requirePermission, type Member } from '../member';
import { route, sendPage, textOf } from '../respond';
import { webhookPage, webhooksPage } from '../views/webhooks';

const PAGE_SIZE = 25;
const DELIVERIES_PAGE_SIZE = 20;

const isEventName = (value: unknown): value is WebhookEventName =>
  typeof value === 'string' && (webhookEventNames as readonly string[]).includes(value);

/** The event names ticked on the form (one value, several, or none). */
function chosenEvents(value: unknown): WebhookEventName[] {
  const values: unknown[] = Array.isArray(value) ? value : [value];
  return values.filter(isEventName);
}

type Extra = { status?: number; secret?: string; notice?: string; error?: string };

async function showWebhooks(
  res: Response,
  member: Member,
  extra: Extra & { after?: string; form?: { url: string; events: string[] } } = {},
): Promise<void> {
  const { after, ...rest } = extra;
  const page = await member.api.webhooks.list({
    limit: PAGE_SIZE,
    ...(after ? { starting_after: after } : {}),
  });
  sendPage(
    res,
    extra.status ?? 200,
    webhooksPage(member.viewer, {
      webhooks: page.data,
      nextCursor: page.has_more ? page.data.at(-1)?.webhook_id : undefined,
      timeZone: member.business.timeZone,
      canWrite: roleAllows(member.role, 'webhooks:write'),
      ...rest,
    }),
  );
}

async function showWebhook(
  res: Response,
  member: Member,
  webhookId: string,
  extra: Extra & { cursor?: string } = {},
): Promise<void> {
  const { cursor, ...rest } = extra;
  // Read first: another business's webhook is not found here, before its deliveries are asked for.
  const webhook = await member.api.webhooks.get(webhookId);
  const deliveries = await member.api.webhooks.deliveries(webhookId, {
    limit: DELIVERIES_PAGE_SIZE,
    ...(cursor ? { cursor } : {}),
  });
  sendPage(
    res,
    extra.status ?? 200,
    webhookPage(member.viewer, {
      webhook,
      deliveries: deliveries.data,
      nextCursor: deliveries.next_cursor ?? undefined,
      timeZone: member.business.timeZone,
      canWrite: roleAllows(member.role, 'webhooks:write'),
      ...rest,
    }),
  );
}

/** An endpoint's address as the audit log keeps it: its host only (a path or query may carry a secret). */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

/** The notices a redirect after an action carries in its query. */
const notices: Record<string, string> = {
  excluido: 'Endpoint excluído: ele não recebe mais eventos.',
  reenvio: 'Entrega reenviada: a nova tentativa aparece em instantes.',
};

/**
 * Webhooks: the business's endpoints; one created (its signing secret shown once), deleted, its secret rotated (shown
 * once); its deliveries with every attempt; a delivery sent again; a test event. All through the public API.
 */
export function webhookRoutes(dataSource: DataSource): Router {
  const router = Router();
  router.get(
    '/webhooks',
    requirePermission('webhooks:read'),
    route(async (req, res) =>
      showWebhooks(res, memberOf(res), {
        after: textOf(req.query.depois) || undefined,
        notice: notices[textOf(req.query.aviso)],
      }),
    ),
  );
  router.post(
    '/webhooks',
    requirePermission('webhooks:write'),
    route(async (req, res) => {
      const member = memberOf(res);
      const url = textOf(req.body.url).trim();
      const events = chosenEvents(req.body.events);
      const form = { url, events };
      if (events.length === 0)
        return showWebhooks(res, member, { status: 422, form, error: 'Escolha ao menos um evento.' });
      const outcome = await refusedOr(() => member.api.webhooks.create({ url, events }));
      if ('refused' in outcome)
        return showWebhooks(res, member, {
          status: outcome.refused.status,
          form,
          error: outcome.refused.message,
        });
      await recordMemberAction(dataSource, req, member, {
        action: 'webhook_created',
        target: outcome.ok.webhook_id,
        details: { host: hostOf(url), events: events.join(' ') },
      });
      await showWebhook(res, member, outcome.ok.webhook_id, {
        status: 201,
        secret: outcome.ok.secret,
        notice: 'Endpoint criado.',
      });
    }),
  );
  router.get(
    '/webhooks/:id',
    requirePermission('webhooks:read'),
    route(async (req, res) =>
      showWebhook(res, memberOf(res), String(req.params.id), {
        cursor: textOf(req.query.depois) || undefined,
        notice: notices[textOf(req.query.aviso)],
      }),
    ),
  );
  router.post(
    '/webhooks/:id/excluir',
    requirePermission('webhooks:write'),
    route(async (req, res) => {
      const member = memberOf(res);
      const { api } = member;
      const webhookId = String(req.params.id);
      // Read first: the public API answers another business's webhook's deletion with FORBIDDEN (its contract's
      // word), which here is what every other action on it answers: not found.
      const webhook = await api.webhooks.get(webhookId);
      await api.webhooks.delete(webhookId);
      await recordMemberAction(dataSource, req, member, {
        action: 'webhook_deleted',
        target: webhookId,
        details: { host: hostOf(webhook.url) },
      });
      res.redirect(303, '/webhooks?aviso=excluido');
    }),
  );
  router.post(
    '/webhooks/:id/trocar-segredo',
    requirePermission('webhooks:write'),
    route(async (req, res) => {
      const member = memberOf(res);
      const webhookId = String(req.params.id);
      const outcome = await refusedOr(() => member.api.webhooks.rotateSecret(webhookId));
      if ('refused' in outcome)
        return showWebhook(res, member, webhookId, {
          status: outcome.refused.status,
          error: outcome.refused.message,
        });
      await recordMemberAction(dataSource, req, member, {
        action: 'webhook_secret_rotated',
        target: webhookId,
      });
      await showWebhook(res, member, webhookId, {
        secret: outcome.ok.secret,
        notice: 'Segredo trocado. Por 24 horas as entregas são assinadas com o novo e com o anterior.',
      });
    }),
  );
  router.post(
    '/webhooks/:id/testar',
    requirePermission('webhooks:write'),
    route(async (req, res) => {
      const member = memberOf(res);
      const webhookId = String(req.params.id);
      const outcome = await refusedOr(() => member.api.webhooks.test(webhookId));
      if ('refused' in outcome)
        return showWebhook(res, member, webhookId, {
          status: outcome.refused.status,
          error: outcome.refused.message,
        });
      const { status_code: code, error, event_id: eventId } = outcome.ok;
      const answered = code !== null && code >= 200 && code < 300;
      await recordMemberAction(dataSource, req, member, {
        action: 'webhook_test_sent',
        target: webhookId,
        details: { event_id: eventId, status_code: code === null ? 'sem resposta' : String(code) },
      });
      await showWebhook(res, member, webhookId, {
        ...(answered
          ? { notice: `Evento de teste ${eventId} enviado: o endpoint respondeu ${code}.` }
          : {
              error: `Evento de teste ${eventId} enviado: o endpoint ${
                code === null ? `não respondeu (${error ?? 'sem resposta'})` : `respondeu ${code}`
              }.`,
            }),
      });
    }),
  );
  router.post(
    '/webhooks/:id/entregas/:deliveryId/reenviar',
    requirePermission('webhooks:write'),
    route(async (req, res) => {
      const member = memberOf(res);
      const webhookId = String(req.params.id);
      const deliveryId = String(req.params.deliveryId);
      const outcome = await refusedOr(() => member.api.webhooks.retryDelivery(webhookId, deliveryId));
      if ('refused' in outcome)
        return showWebhook(res, member, webhookId, {
          status: outcome.refused.status,
          error: outcome.refused.message,
        });
      await recordMemberAction(dataSource, req, member, {
        action: 'webhook_delivery_resent',
        target: webhookId,
        details: { delivery_id: deliveryId },
      });
      res.redirect(303, `/webhooks/${encodeURIComponent(webhookId)}?aviso=reenvio`);
    }),
  );
  return router;
}
