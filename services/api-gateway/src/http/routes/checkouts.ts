import Joi from 'joi';
import {
  boundedText,
  checkoutId,
  createCheckout,
  getCheckout,
  givenId,
  listCheckouts,
  listCheckoutSessions,
  pageSchema,
  sessionId,
  updateCheckout,
  type Checkout,
  type HttpApi,
} from '@gateway/contracts';
import { AppError } from '@gateway/http-errors';
import type { ApiGatewayConfig } from '../../config';
import { defineOperation, exampleId, json, only, pageOf, type Tag } from '../operation';
import { jsonText, pageQuery } from '../validation';

// The answers only this family gives (shared ones: openapi/response-schemas.ts).

const checkoutRecord = getCheckout.resultSchema as Joi.ObjectSchema;
/** Records also carry `url`, where the hosted page is shared (`withUrl`). */
const publicCheckout = checkoutRecord
  .keys({ url: Joi.string().uri().required().description('The hosted checkout page.') })
  .id('Checkout');
const checkoutWithSessions = publicCheckout
  .keys({
    sessions: checkoutRecord.extract('sessions').required(),
    sessions_has_more: checkoutRecord.extract('sessions_has_more').required(),
  })
  .id('CheckoutWithSessions');

const httpUrl = boundedText('url').uri({ scheme: ['http', 'https'] });

export const createCheckoutBody = Joi.object({
  product_id: givenId.required(),
  return_url: httpUrl.required(),
  cancel_url: httpUrl.required(),
  title: boundedText('title').allow(null),
  slug: boundedText('slug').allow(null),
  metadata: jsonText.allow(null),
});

export const checkoutChanges = Joi.object({
  title: boundedText('title').allow(null),
  return_url: httpUrl,
  cancel_url: httpUrl,
  status: Joi.string().valid('active', 'inactive'),
});

export const checkoutsPage = pageQuery(checkoutId);
export const sessionsPage = pageQuery(sessionId);

/** A checkout with `url`, where its hosted page is shared. */
const withUrl = (config: ApiGatewayConfig, checkout: Checkout): HttpApi.Checkout => ({
  ...checkout,
  url: `${config.PUBLIC_BASE_URL}/c/${encodeURIComponent(checkout.slug)}`,
});

/** The document's group of this family's operations. */
export const checkoutsTag: Tag = {
  name: 'Checkouts',
  description: 'Shareable checkout pages for products, and their payment sessions.',
};

/** /v1/checkouts. Records also carry `url`, where the hosted page is shared (additive to API 1.0.0). */
export const checkoutOperations = [
  defineOperation({
    method: 'post',
    path: '/v1/checkouts',
    operationId: 'createCheckout',
    tag: 'Checkouts',
    area: 'api',
    scope: 'checkouts:write',
    summary: 'Create a checkout for a product, shared by URL',
    body: {
      name: 'CreateCheckoutRequest',
      schema: createCheckoutBody,
      examples: only('A product of yours (replace product_id)', {
        product_id: exampleId('prod'),
        title: 'Camiseta azul',
        return_url: 'https://loja.example/obrigado',
        cancel_url: 'https://loja.example/carrinho',
      }),
    },
    commands: [createCheckout],
    cli: {
      command: 'checkouts create',
      description: 'create a checkout link for a product',
      fields: {
        product_id: { flag: 'product' },
        return_url: { value: 'url', description: 'where the buyer goes once paid' },
        cancel_url: { value: 'url', description: 'where the buyer goes on cancel' },
        metadata: { value: 'json' },
      },
    },
    sdk: { method: 'checkouts.create' },
    answers: [json(201, 'The checkout; `url` is its hosted page.', publicCheckout)],
    handle: async ({ body, businessId, send }, { config }) => {
      const checkout = await send(createCheckout, {
        business_id: businessId,
        product_id: body.product_id,
        return_url: body.return_url,
        cancel_url: body.cancel_url,
        title: body.title ?? null,
        slug: body.slug ?? null,
        metadata: body.metadata ?? null,
      });
      return withUrl(config, checkout);
    },
  }),
  defineOperation({
    method: 'get',
    path: '/v1/checkouts/{checkout_id}',
    operationId: 'getCheckout',
    tag: 'Checkouts',
    area: 'api',
    scope: 'checkouts:read',
    summary: 'Read a checkout with its newest sessions',
    params: { checkout_id: 'chk' },
    commands: [getCheckout],
    cli: { command: 'checkouts get', description: 'read a checkout with its newest sessions' },
    sdk: { method: 'checkouts.get' },
    answers: [json(200, 'The checkout and its newest 100 sessions.', checkoutWithSessions)],
    handle: async ({ params, businessId, send }, { config }) => {
      const checkout = await send(getCheckout, { business_id: businessId, checkout_id: params.checkout_id });
      if (checkout.business_id !== businessId) throw new AppError('NOT_FOUND');
      return {
        ...withUrl(config, checkout),
        sessions: checkout.sessions ?? [],
        sessions_has_more: checkout.sessions_has_more ?? false,
      };
    },
  }),
  // Additive: a checkout changed, or taken down (`inactive`) and put back, without a new link.
  defineOperation({
    method: 'patch',
    path: '/v1/checkouts/{checkout_id}',
    operationId: 'updateCheckout',
    tag: 'Checkouts',
    area: 'api',
    scope: 'checkouts:write',
    summary: 'Change a checkout, or deactivate it',
    description:
      'Only the fields sent change; a `null` title clears it. `inactive` takes the hosted page down (a payment ' +
      'already started there goes on); `active` puts it back at the same `url`.',
    params: { checkout_id: 'chk' },
    body: {
      name: 'UpdateCheckoutRequest',
      schema: checkoutChanges,
      examples: only('Deactivate', { status: 'inactive' }),
    },
    checks: ['body', 'params'],
    commands: [updateCheckout],
    cli: { command: 'checkouts update', description: 'change a checkout, or deactivate it' },
    sdk: { method: 'checkouts.update', optionalBody: false },
    answers: [json(200, 'The checkout as it now is.', publicCheckout)],
    handle: async ({ params, body, businessId, send }, { config }) => {
      const checkout = await send(updateCheckout, {
        business_id: businessId,
        checkout_id: params.checkout_id,
        ...(body.title !== undefined ? { title: body.title } : {}),
        ...(body.return_url !== undefined ? { return_url: body.return_url } : {}),
        ...(body.cancel_url !== undefined ? { cancel_url: body.cancel_url } : {}),
        ...(body.status !== undefined ? { status: body.status } : {}),
      });
      return withUrl(config, checkout);
    },
  }),
  // The business's checkouts, newest first, a page at a time (docs/api.md#lists-and-pagination), without their sessions.
  defineOperation({
    method: 'get',
    path: '/v1/checkouts',
    operationId: 'listCheckouts',
    tag: 'Checkouts',
    area: 'api',
    scope: 'checkouts:read',
    summary: "List the business's checkouts, newest first (without sessions)",
    query: [checkoutsPage],
    commands: [listCheckouts],
    cli: { command: 'checkouts list', description: 'list checkouts, newest first' },
    sdk: { method: 'checkouts.list' },
    answers: [json(200, 'A page of checkouts.', pageSchema(publicCheckout))],
    handle: async ({ query, businessId, send }, { config }) => {
      const page = await send(listCheckouts, { business_id: businessId, ...pageOf(query) });
      if (page.data.some((checkout) => checkout.business_id !== businessId))
        throw new AppError('INTERNAL_ERROR');
      return { data: page.data.map((checkout) => withUrl(config, checkout)), has_more: page.has_more };
    },
  }),
  // Additive: every session of a checkout, a page at a time (the read above embeds only the newest).
  defineOperation({
    method: 'get',
    path: '/v1/checkouts/{checkout_id}/sessions',
    operationId: 'listCheckoutSessions',
    tag: 'Checkouts',
    area: 'api',
    scope: 'checkouts:read',
    summary: "List a checkout's sessions, newest first",
    params: { checkout_id: 'chk' },
    query: [sessionsPage],
    commands: [listCheckoutSessions],
    cli: { command: 'checkouts sessions', description: "a checkout's payment sessions, newest first" },
    sdk: { method: 'checkouts.sessions' },
    answers: [json(200, 'A page of sessions.', listCheckoutSessions.resultSchema)],
    handle: ({ params, query, businessId, send }) =>
      send(listCheckoutSessions, {
        business_id: businessId,
        checkout_id: params.checkout_id,
        ...pageOf(query),
      }),
  }),
];
