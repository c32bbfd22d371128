import Joi from 'joi';
import { DEFAULT_WEBHOOK_TIMEOUT_MS } from '@gateway/config';
import {
  PAGE_LIMIT_MAX,
  boundedText,
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhookDeliveries,
  listWebhooks,
  pageSchema,
  retryWebhookDelivery,
  rotateWebhookSecret,
  sendTestWebhook,
  webhookDeliveriesCursor,
  webhookDeliveriesLimit,
  webhookEventNames,
  webhookId,
  eventId,
  isoDate,
  publicId,
} from '@gateway/contracts';
import { defineOperation, json, only, pageOf, type Tag } from '../operation';
import { nullableText } from '../openapi/response-schemas';
import { pageQuery } from '../validation';

// The answers only this family gives (shared ones: openapi/response-schemas.ts).

const webhook = getWebhook.resultSchema.id('Webhook');
const webhookCreated = createWebhook.resultSchema.id('WebhookWithSecret');
const webhookDeleted = deleteWebhook.resultSchema.id('WebhookDeleted');
const webhookSecret = rotateWebhookSecret.resultSchema.id('WebhookSecret');
const deliveryRetried = retryWebhookDelivery.resultSchema.id('DeliveryRetried');
const webhookTested = sendTestWebhook.resultSchema.id('WebhookTested');

/** The contract leaves a delivery's items open; this is what the dispatcher answers (WebhookDelivery). */
const deliveriesPage = Joi.object({
  data: Joi.array()
    .items(
      Joi.object({
        delivery_id: publicId('dlv').required(),
        event_id: eventId.required(),
        event_type: Joi.string().required(),
        status: Joi.string().required(),
        attempts: Joi.array()
          .items(
            Joi.object({
              attempted_at: isoDate.required(),
              status_code: Joi.number().integer().allow(null).required(),
              latency_ms: Joi.number().integer().min(0).required(),
              error: nullableText,
              response_body: Joi.string().allow(null, '').required(),
            }),
          )
          .required(),
        next_attempt_at: isoDate.allow(null).required(),
        created_at: isoDate.required(),
      }).id('WebhookDelivery'),
    )
    .required(),
  next_cursor: nullableText.description('Pass as `cursor` for the next page; null on the last one.'),
});

export const createWebhookBody = Joi.object({
  url: boundedText('url')
    .uri({ scheme: ['https'] })
    .required(),
  events: Joi.array()
    .items(Joi.string().valid(...webhookEventNames))
    .min(1)
    .unique()
    .required(),
});

export const deliveriesQuery = Joi.object({
  limit: webhookDeliveriesLimit,
  cursor: webhookDeliveriesCursor,
});

export const webhooksPage = pageQuery(webhookId);

/** The dispatcher's own bound on one delivery attempt (WEBHOOK_TIMEOUT_MS default), plus slack. */
const WEBHOOK_TEST_BUDGET_MS = DEFAULT_WEBHOOK_TIMEOUT_MS + 1_000;

/** The document's group of this family's operations. */
export const webhooksTag: Tag = {
  name: 'Webhooks',
  description: 'Endpoints that receive signed events; deliveries, retries and tests.',
};

/** /v1/webhook, plus (additive) delivery history, manual retry and a test event. */
export const webhookOperations = [
  defineOperation({
    method: 'post',
    path: '/v1/webhook',
    operationId: 'createWebhook',
    tag: 'Webhooks',
    area: 'api',
    scope: 'webhooks:write',
    summary: 'Register an HTTPS endpoint for events',
    description: 'The answer carries the signing `secret`, shown this once.',
    body: {
      name: 'CreateWebhookRequest',
      schema: createWebhookBody,
      examples: only('Payment outcomes', {
        url: 'https://loja.example/webhooks/gateway',
        events: ['payment.confirmed', 'payment.failed', 'payment.expired'],
      }),
    },
    commands: [createWebhook],
    cli: {
      command: 'webhooks create',
      description: 'register an https:// endpoint (the signing secret is shown once)',
      fields: { events: { value: 'names', default: webhookEventNames.join(',') } },
    },
    sdk: {
      method: 'webhooks.create',
      description: 'The answer carries the signing secret, shown this once.',
    },
    answers: [json(201, 'The webhook and its secret.', webhookCreated)],
    handle: ({ body, businessId, send }) =>
      send(createWebhook, { business_id: businessId, url: body.url, events: body.events }),
  }),
  // One of the business's webhooks: never its secret (docs/adr/0011-secrets-hashed-sealed-never-logged.md).
  defineOperation({
    method: 'get',
    path: '/v1/webhook/{webhook_id}',
    operationId: 'getWebhook',
    tag: 'Webhooks',
    area: 'api',
    scope: 'webhooks:read',
    summary: 'Read a webhook (never its secret)',
    params: { webhook_id: 'wh' },
    commands: [getWebhook],
    cli: { command: 'webhooks get', description: 'read a webhook (never its secret)' },
    sdk: { method: 'webhooks.get' },
    answers: [json(200, 'The webhook.', webhook)],
    handle: ({ params, businessId, send }) =>
      send(getWebhook, { business_id: businessId, webhook_id: params.webhook_id }),
  }),
  // The business's webhooks, newest first, a page at a time: never a secret (docs/adr/0011-secrets-hashed-sealed-never-logged.md).
  defineOperation({
    method: 'get',
    path: '/v1/webhook',
    operationId: 'listWebhooks',
    tag: 'Webhooks',
    area: 'api',
    scope: 'webhooks:read',
    summary: "List the business's webhooks, newest first (never their secrets)",
    query: [webhooksPage],
    commands: [listWebhooks],
    cli: { command: 'webhooks list', description: 'list webhooks, newest first' },
    sdk: { method: 'webhooks.list' },
    answers: [json(200, 'A page of webhooks.', pageSchema(webhook))],
    handle: ({ query, businessId, send }) =>
      send(listWebhooks, { business_id: businessId, ...pageOf(query) }),
  }),
  defineOperation({
    method: 'delete',
    path: '/v1/webhook/{webhook_id}',
    operationId: 'deleteWebhook',
    tag: 'Webhooks',
    area: 'api',
    scope: 'webhooks:write',
    summary: 'Delete a webhook: it stops receiving at once',
    params: { webhook_id: 'wh' },
    commands: [deleteWebhook],
    cli: { command: 'webhooks delete', description: 'delete a webhook: it stops receiving at once' },
    sdk: { method: 'webhooks.delete', goneAnswer: { deleted: true } },
    answers: [json(200, 'Deleted.', webhookDeleted)],
    handle: ({ params, businessId, send }) =>
      send(deleteWebhook, { business_id: businessId, webhook_id: params.webhook_id }),
  }),
  // A new secret, shown once; the replaced one keeps signing for WEBHOOK_SECRET_OVERLAP_HOURS (docs/adr/0009-webhook-delivery-and-signatures.md).
  defineOperation({
    method: 'post',
    path: '/v1/webhook/{webhook_id}/rotate-secret',
    operationId: 'rotateWebhookSecret',
    tag: 'Webhooks',
    area: 'api',
    scope: 'webhooks:write',
    summary: 'Rotate the signing secret',
    description:
      'For 24 hours deliveries are signed with both secrets (`webhook-signature`, space-separated).',
    params: { webhook_id: 'wh' },
    commands: [rotateWebhookSecret],
    cli: {
      command: 'webhooks rotate-secret',
      description: 'a new signing secret (shown once); the old one also signs for 24 h',
    },
    sdk: {
      method: 'webhooks.rotateSecret',
      description: 'A new secret, shown once; for 24 h deliveries are signed with both.',
    },
    answers: [json(200, 'The new secret, shown this once.', webhookSecret)],
    handle: ({ params, businessId, send }) =>
      send(rotateWebhookSecret, { business_id: businessId, webhook_id: params.webhook_id }),
  }),
  defineOperation({
    method: 'get',
    path: '/v1/webhook/{webhook_id}/deliveries',
    operationId: 'listWebhookDeliveries',
    tag: 'Webhooks',
    area: 'api',
    scope: 'webhooks:read',
    summary: "List a webhook's deliveries and their attempts, newest first",
    params: { webhook_id: 'wh' },
    query: [deliveriesQuery],
    // The query before the path id, as this route always checked them.
    checks: ['query', 'params'],
    commands: [listWebhookDeliveries],
    cli: {
      command: 'webhooks deliveries',
      description: "a webhook's newest deliveries with every attempt",
      fields: {
        limit: { value: 'n', description: `how many (1 to ${PAGE_LIMIT_MAX})` },
        cursor: { skip: true },
      },
    },
    sdk: {
      method: 'webhooks.deliveries',
      description: 'Delivery history, newest first, with every attempt.',
      handWritten: true,
    },
    answers: [json(200, 'A page of deliveries.', deliveriesPage)],
    handle: ({ params, query, businessId, send }) =>
      send(listWebhookDeliveries, {
        business_id: businessId,
        webhook_id: params.webhook_id,
        limit: query.limit,
        cursor: query.cursor ?? null,
      }),
  }),
  defineOperation({
    method: 'post',
    path: '/v1/webhook/{webhook_id}/deliveries/{delivery_id}/retry',
    operationId: 'retryWebhookDelivery',
    tag: 'Webhooks',
    area: 'api',
    scope: 'webhooks:write',
    summary: 'Deliver again now',
    params: { webhook_id: 'wh', delivery_id: 'dlv' },
    commands: [retryWebhookDelivery],
    cli: { command: 'webhooks retry', description: 'redeliver a delivery now' },
    sdk: { method: 'webhooks.retryDelivery', description: 'Redelivers now.' },
    answers: [json(200, 'The delivery, scheduled now.', deliveryRetried)],
    handle: ({ params, businessId, send }) =>
      send(retryWebhookDelivery, {
        business_id: businessId,
        webhook_id: params.webhook_id,
        delivery_id: params.delivery_id,
      }),
  }),
  // The dispatcher sends the test event while we wait, bounded by its own delivery timeout (10 s).
  defineOperation({
    method: 'post',
    path: '/v1/webhook/{webhook_id}/test',
    operationId: 'sendTestWebhook',
    tag: 'Webhooks',
    area: 'api',
    scope: 'webhooks:write',
    summary: 'Send a signed `webhook.test` event now',
    params: { webhook_id: 'wh' },
    commands: [sendTestWebhook],
    cli: {
      command: 'webhooks test',
      description: 'send a signed webhook.test event now and show how the endpoint answered',
    },
    sdk: {
      method: 'webhooks.test',
      description: 'Sends a signed `webhook.test` event now and answers how your endpoint replied.',
    },
    answers: [json(200, 'What the endpoint answered.', webhookTested)],
    handle: ({ params, businessId, send }, { config }) =>
      send(
        sendTestWebhook,
        { business_id: businessId, webhook_id: params.webhook_id },
        config.RPC_TIMEOUT_MS + WEBHOOK_TEST_BUDGET_MS,
      ),
  }),
];
