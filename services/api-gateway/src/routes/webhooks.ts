import { Router } from 'express';
import Joi from 'joi';
import {
  createWebhook,
  deleteWebhook,
  listWebhookDeliveries,
  retryWebhookDelivery,
  sendTestWebhook,
  webhookEventNames,
  type WebhookEventName,
} from '@gateway/contracts';
import { asyncHandler } from '@gateway/http-errors';
import { identityOf } from '../http/identity';
import { pathId, validateBody, validateQuery } from '../http/validation';
import type { RouteContext } from './context';

const createWebhookBody = Joi.object<{ url: string; events: WebhookEventName[] }>({
  url: Joi.string()
    .uri({ scheme: ['https'] })
    .max(2000)
    .required(),
  events: Joi.array()
    .items(Joi.string().valid(...webhookEventNames))
    .min(1)
    .unique()
    .required(),
});

const deliveriesQuery = Joi.object<{ limit: number; cursor?: string }>({
  limit: Joi.number().integer().min(1).max(100).default(20),
  cursor: Joi.string().max(500),
});

/** /v1/webhook, plus (additive) delivery history, manual retry and a test event. */
export function webhookRoutes({ commands }: RouteContext): Router {
  const router = Router();

  router.post(
    '/webhook',
    asyncHandler(async (req, res) => {
      const body = validateBody(createWebhookBody, req.body);
      const webhook = await commands.send(
        createWebhook,
        { business_id: identityOf(res).businessId, url: body.url, events: body.events },
        res,
      );
      res.status(201).json(webhook);
    }),
  );

  router.delete(
    '/webhook/:webhook_id',
    asyncHandler(async (req, res) => {
      const result = await commands.send(
        deleteWebhook,
        { business_id: identityOf(res).businessId, webhook_id: pathId(req.params.webhook_id) },
        res,
      );
      res.json(result);
    }),
  );

  router.get(
    '/webhook/:webhook_id/deliveries',
    asyncHandler(async (req, res) => {
      const query = validateQuery(deliveriesQuery, req.query);
      const page = await commands.send(
        listWebhookDeliveries,
        {
          business_id: identityOf(res).businessId,
          webhook_id: pathId(req.params.webhook_id),
          limit: query.limit,
          cursor: query.cursor ?? null,
        },
        res,
      );
      res.json(page);
    }),
  );

  router.post(
    '/webhook/:webhook_id/deliveries/:delivery_id/retry',
    asyncHandler(async (req, res) => {
      const result = await commands.send(
        retryWebhookDelivery,
        {
          business_id: identityOf(res).businessId,
          webhook_id: pathId(req.params.webhook_id),
          delivery_id: pathId(req.params.delivery_id),
        },
        res,
      );
      res.json(result);
    }),
  );

  router.post(
    '/webhook/:webhook_id/test',
    asyncHandler(async (req, res) => {
      const result = await commands.send(
        sendTestWebhook,
        { business_id: identityOf(res).businessId, webhook_id: pathId(req.params.webhook_id) },
        res,
      );
      res.json(result);
    }),
  );

  return router;
}
