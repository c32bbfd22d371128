import { Router } from 'express';
import Joi from 'joi';
import { DEFAULT_WEBHOOK_TIMEOUT_MS } from '@gateway/config';
import {
  boundedText,
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhookDeliveries,
  listWebhooks,
  retryWebhookDelivery,
  rotateWebhookSecret,
  sendTestWebhook,
  webhookDeliveriesCursor,
  webhookDeliveriesLimit,
  webhookEventNames,
  webhookId,
  type WebhookEventName,
} from '@gateway/contracts';
import { commandRoute, ownResourcePayload } from '../commands';
import { pageQuery, pathId, readPage, validateBody, validateQuery } from '../validation';
import type { RouteContext } from './context';

export const createWebhookBody = Joi.object<{ url: string; events: WebhookEventName[] }>({
  url: boundedText('url')
    .uri({ scheme: ['https'] })
    .required(),
  events: Joi.array()
    .items(Joi.string().valid(...webhookEventNames))
    .min(1)
    .unique()
    .required(),
});

export const deliveriesQuery = Joi.object<{ limit: number; cursor?: string }>({
  limit: webhookDeliveriesLimit,
  cursor: webhookDeliveriesCursor,
});

export const webhooksPage = pageQuery(webhookId);

/** The dispatcher's own bound on one delivery attempt (WEBHOOK_TIMEOUT_MS default), plus slack. */
const WEBHOOK_TEST_BUDGET_MS = DEFAULT_WEBHOOK_TIMEOUT_MS + 1_000;

/** /v1/webhook, plus (additive) delivery history, manual retry and a test event. */
export function webhookRoutes({ commands, config }: RouteContext): Router {
  const router = Router();
  const webhookOf = ownResourcePayload('webhook_id', 'wh');

  router.post(
    '/webhook',
    commandRoute(
      commands,
      createWebhook,
      (req, businessId) => {
        const body = validateBody(createWebhookBody, req.body);
        return { business_id: businessId, url: body.url, events: body.events };
      },
      { status: 201 },
    ),
  );

  // The business's webhooks, newest first, a page at a time, and one of them: never a secret (docs/adr/0011-secrets-hashed-sealed-never-logged.md).
  router.get(
    '/webhook',
    commandRoute(commands, listWebhooks, (req, businessId) => {
      return { business_id: businessId, ...readPage(webhooksPage, req.query) };
    }),
  );
  router.get('/webhook/:webhook_id', commandRoute(commands, getWebhook, webhookOf));

  router.delete('/webhook/:webhook_id', commandRoute(commands, deleteWebhook, webhookOf));

  // A new secret, shown once; the replaced one keeps signing for WEBHOOK_SECRET_OVERLAP_HOURS (docs/adr/0009-webhook-delivery-and-signatures.md).
  router.post('/webhook/:webhook_id/rotate-secret', commandRoute(commands, rotateWebhookSecret, webhookOf));

  router.get(
    '/webhook/:webhook_id/deliveries',
    commandRoute(commands, listWebhookDeliveries, (req, businessId) => {
      const query = validateQuery(deliveriesQuery, req.query);
      return { ...webhookOf(req, businessId), limit: query.limit, cursor: query.cursor ?? null };
    }),
  );

  router.post(
    '/webhook/:webhook_id/deliveries/:delivery_id/retry',
    commandRoute(commands, retryWebhookDelivery, (req, businessId) => ({
      ...webhookOf(req, businessId),
      delivery_id: pathId('dlv', req.params.delivery_id),
    })),
  );

  // The dispatcher sends the test event while we wait, bounded by its own delivery timeout (10 s).
  router.post(
    '/webhook/:webhook_id/test',
    commandRoute(commands, sendTestWebhook, webhookOf, {
      timeoutMs: config.RPC_TIMEOUT_MS + WEBHOOK_TEST_BUDGET_MS,
    }),
  );

  return router;
}
