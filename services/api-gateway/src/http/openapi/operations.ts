import Joi from 'joi';
import {} from '@gateway/contracts';
import { apiReferenceAssetNames } from '../api-reference';
import { exampleId, json, type OperationSpec } from '../operation';
import { adminOperations } from '../routes/admin';
import { checkoutOperations } from '../routes/checkouts';
import { customerOperations } from '../routes/customers';
import { eventOperations } from '../routes/events';
import { hostedCheckoutOperations } from '../routes/hosted-checkout';
import { paymentOperations, sandboxOperations } from '../routes/payments';
import { refundOperations } from '../routes/refunds';
import { webhookOperations } from '../routes/webhooks';
import * as answers from './response-schemas';

export { exampleId };
export type { Answer, Area, HttpMethod, OperationSpec, RequestExamples } from '../operation';

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
  ...hostedCheckoutOperations,
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
