import Joi from 'joi';
import {
  publicDisputeEvents,
  publicIdPattern,
  publicPaymentEvents,
  publicPayoutEvents,
  publicRefundEvents,
  publicSubscriptionEvents,
  subscriptionCycleRetryScheduled,
  splitName,
  webhookEventNames,
  type MessageDefinition,
} from '@gateway/contracts';
import { pascalCase, type JsonSchema, type SchemaComponents } from './json-schema';
import {
  dispute,
  eventOf,
  eventPayment,
  eventRefund,
  payout,
  subscription,
  subscriptionCycleRetry,
  webhookTestData,
} from './response-schemas';

/**
 * The event the dispatcher sends for POST /v1/webhook/{webhook_id}/test. It is the dispatcher's own type, outside the
 * contracts' subscription names; the live e2e test checks a real one against this document.
 */
export const TEST_EVENT_TYPE = 'webhook.test';

const typesOf = (events: Array<MessageDefinition<unknown>>) =>
  events.map((event) => splitName(event.name).type);

/** What each event's `data` is: the payment record for `payment.*`, the refund's for `refund.*`, the payout's for `payout.*`, the dispute's
 * for `dispute.*`. */
function dataOfEvents(): Map<string, Joi.Schema> {
  const data = new Map<string, Joi.Schema>();
  for (const type of typesOf(publicPaymentEvents)) data.set(type, eventPayment);
  for (const type of typesOf(publicRefundEvents)) data.set(type, eventRefund);
  for (const type of typesOf(publicPayoutEvents)) data.set(type, payout);
  for (const type of typesOf(publicDisputeEvents)) data.set(type, dispute);
  for (const type of typesOf(publicSubscriptionEvents)) data.set(type, subscription);
  data.set(splitName(subscriptionCycleRetryScheduled.name).type, subscriptionCycleRetry);
  const undescribed = webhookEventNames.filter((name) => !data.has(name));
  if (undescribed.length > 0)
    throw new Error(`events without a described payload: ${undescribed.join(', ')}`);
  data.set(TEST_EVENT_TYPE, webhookTestData);
  return data;
}

const signatureHeaders = [
  {
    name: 'x-service-signature',
    description: 'Lowercase hex HMAC-SHA256 of the raw body, keyed with the webhook secret.',
    schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
  },
  {
    name: 'webhook-id',
    description: 'The event id (Standard Webhooks): deliveries of one event share it, so dedupe on it.',
    schema: { type: 'string', pattern: publicIdPattern('evt').source },
  },
  {
    name: 'webhook-timestamp',
    description: 'Unix seconds of this attempt (Standard Webhooks); refuse stale ones.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  {
    name: 'webhook-signature',
    description:
      'Standard Webhooks: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` keyed with the base64-decoded secret ' +
      'after `whsec_`; during a rotation, one value per secret, space-separated.',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$' },
  },
].map((header) => ({ ...header, in: 'header', required: true }));

/** The OpenAPI `webhooks`: one POST per event type, as the dispatcher delivers it to a registered URL. */
export function webhookOperations(components: SchemaComponents): Record<string, JsonSchema> {
  const operations: Record<string, JsonSchema> = {};
  for (const [type, data] of dataOfEvents()) {
    const body = eventOf(Joi.string().valid(type), data).id(`${pascalCase(type)}Event`);
    operations[type] = {
      post: {
        operationId: `on${pascalCase(type)}`,
        tags: ['Webhooks'],
        summary: `\`${type}\` delivered to your endpoint`,
        parameters: signatureHeaders,
        requestBody: { required: true, content: { 'application/json': { schema: components.of(body) } } },
        responses: {
          '2XX': {
            description: 'Received. Anything else (or no answer within 10 s) is retried with backoff.',
          },
          '410': { description: 'Gone: the webhook is disabled.' },
        },
      },
    };
  }
  return operations;
}
