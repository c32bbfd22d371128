import Joi from 'joi';
import {
  CHECKOUT_SLUG_PATTERN,
  MAX_CHECKOUT_SLUG_LENGTH,
  MIN_CHECKOUT_SLUG_LENGTH,
  cancelPayment,
  getCheckoutPage,
  getCheckoutSessionStatus,
  getPayment,
  startCheckoutSession,
} from '@gateway/contracts';
import { apiReferenceAssetNames } from '../api-reference';
import { checkoutAssets } from '../checkout-page';
import { exampleId, json, type OperationSpec } from '../operation';
import { adminOperations } from '../routes/admin';
import { checkoutOperations } from '../routes/checkouts';
import { customerOperations } from '../routes/customers';
import { eventOperations } from '../routes/events';
import { startSessionBody } from '../routes/hosted-checkout';
import { paymentOperations, sandboxOperations } from '../routes/payments';
import { refundOperations } from '../routes/refunds';
import { webhookOperations } from '../routes/webhooks';
import * as answers from './response-schemas';

export { exampleId };
export type { Answer, Area, HttpMethod, OperationSpec, RequestExamples } from '../operation';

const slug = Joi.string()
  .min(MIN_CHECKOUT_SLUG_LENGTH)
  .max(MAX_CHECKOUT_SLUG_LENGTH)
  .pattern(CHECKOUT_SLUG_PATTERN)
  .description('A malformed slug is not found.');

/** Every route the gateway serves, as app.ts mounts them; openapi-document.unit.test.ts holds the two together. */
export const operations: OperationSpec[] = [
  ...paymentOperations,
  ...refundOperations,
  ...sandboxOperations,
  ...checkoutOperations,
  ...customerOperations,
  ...webhookOperations,
  ...eventOperations,
  ...adminOperations,
  {
    method: 'get',
    path: '/c/assets/{name}',
    operationId: 'getCheckoutAsset',
    tag: 'Hosted checkout',
    area: 'public',
    summary: "The hosted page's stylesheet, script and icon",
    params: { name: Joi.string().valid(...Object.keys(checkoutAssets)) },
    // Past the query's NUL check (app.ts), before the page's rate limit.
    errors: ['NOT_FOUND', 'INVALID_FIELDS'],
    answers: [
      { status: 200, description: 'The file.', mediaTypes: ['text/css', 'text/javascript', 'image/svg+xml'] },
    ],
  },
  {
    method: 'get',
    path: '/c/{slug}',
    operationId: 'getCheckoutPage',
    tag: 'Hosted checkout',
    area: 'checkout-page',
    summary: 'The hosted checkout page a buyer opens',
    description: 'Server-rendered, in Portuguese; the buyer picks PIX or a stablecoin and pays.',
    params: { slug },
    answers: [
      { status: 200, description: 'The page.', mediaTypes: ['text/html'] },
      { status: 404, description: 'The not-found page.', mediaTypes: ['text/html'] },
      { status: 503, description: 'The try-again page (with `Retry-After`).', mediaTypes: ['text/html'] },
    ],
  },
  {
    method: 'post',
    path: '/c/{slug}/sessions',
    operationId: 'startCheckoutSession',
    tag: 'Hosted checkout',
    area: 'checkout',
    summary: "Start a payment on the hosted page (the page's own call)",
    body: {
      name: 'StartCheckoutSessionRequest',
      schema: startSessionBody,
      examples: {
        pix: { summary: 'PIX', value: { method: 'pix' } },
        usdc: { summary: 'USDC on Solana', value: { method: 'crypto', currency: 'USDC' } },
      },
    },
    params: { slug },
    commands: [getCheckoutPage, startCheckoutSession],
    errors: ['UNSUPPORTED_PAYMENT_METHOD'],
    answers: [json(201, 'The session and what the buyer needs to pay.', answers.checkoutSessionStarted)],
  },
  {
    method: 'get',
    path: '/c/{slug}/sessions/{session_id}',
    operationId: 'getCheckoutSessionStatus',
    tag: 'Hosted checkout',
    area: 'checkout',
    summary: "A session's status (the page polls it)",
    params: { slug, session_id: 'sess' },
    commands: [getCheckoutSessionStatus],
    answers: [json(200, 'The status, and where to send the buyer once paid.', answers.checkoutSessionStatus)],
  },
  {
    method: 'post',
    path: '/c/{slug}/sessions/{session_id}/cancel',
    operationId: 'cancelCheckoutSession',
    tag: 'Hosted checkout',
    area: 'checkout',
    summary: "Cancel the session's open payment, going back to the method choice (the page's own call)",
    description:
      "Cancels the session's payment as `POST /v1/payments/{payment_id}/cancel` does (the PIX cob removed at the PSP, " +
      'the crypto request closed), so it can no longer be paid next to a new attempt. A session already ended answers ' +
      'its status unchanged; a payment paid before the cancel answers `paid`, and the page shows it paid.',
    params: { slug, session_id: 'sess' },
    commands: [getCheckoutSessionStatus, cancelPayment, getPayment],
    answers: [json(200, 'The status the payment ended in.', answers.checkoutSessionStatus)],
  },
  {
    method: 'get',
    path: '/healthz',
    operationId: 'getLiveness',
    tag: 'Operations',
    area: 'public',
    summary: 'The process is up',
    answers: [json(200, 'Up.', answers.liveness)],
  },
  {
    method: 'get',
    path: '/readyz',
    operationId: 'getReadiness',
    tag: 'Operations',
    area: 'public',
    summary: 'PostgreSQL, Redis, RabbitMQ and every downstream service answer',
    answers: [
      json(200, 'Ready.', answers.readiness),
      json(503, 'Not ready (with `Retry-After`).', answers.readiness),
    ],
  },
  {
    method: 'get',
    path: '/metrics',
    operationId: 'getMetrics',
    tag: 'Operations',
    area: 'public',
    summary: 'Prometheus metrics',
    answers: [{ status: 200, description: 'Prometheus text format.', mediaTypes: ['text/plain'] }],
  },
  {
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    tag: 'Reference',
    area: 'public',
    summary: 'This document',
    answers: [json(200, 'The OpenAPI 3.1 document of the whole API.', Joi.object().unknown())],
  },
  {
    method: 'get',
    path: '/docs',
    operationId: 'getApiReference',
    tag: 'Reference',
    area: 'public',
    summary: 'The API reference page rendered from this document',
    answers: [{ status: 200, description: 'The page.', mediaTypes: ['text/html'] }],
  },
  {
    method: 'get',
    path: '/docs/assets/{name}',
    operationId: 'getApiReferenceAsset',
    tag: 'Reference',
    area: 'public',
    summary: "The reference page's files (Swagger UI)",
    params: { name: Joi.string().valid(...apiReferenceAssetNames) },
    errors: ['NOT_FOUND'],
    answers: [
      { status: 200, description: 'The file.', mediaTypes: ['text/css', 'text/javascript', 'image/png'] },
    ],
  },
];
