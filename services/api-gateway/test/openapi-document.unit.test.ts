import Redis from 'ioredis';
import Joi from 'joi';
import type { DataSource } from 'typeorm';
import { errorCodes, webhookEventNames, type ErrorCode } from '@gateway/contracts';
import { errorCatalog } from '@gateway/http-errors';
import type { Broker } from '@gateway/messaging';
import { testLogger } from '@gateway/testkit';
import { createApp } from '../src/http/app';
import type { ApiGatewayConfig } from '../src/config';
import { buildOpenApiDocument, operations, type OpenApiDocument } from '../src/http/openapi';
import * as adminRoutes from '../src/http/routes/admin';
import * as checkoutRoutes from '../src/http/routes/checkouts';
import * as customerRoutes from '../src/http/routes/customers';
import * as eventRoutes from '../src/http/routes/events';
import * as hostedCheckoutRoutes from '../src/http/routes/hosted-checkout';
import * as paymentRoutes from '../src/http/routes/payments';
import * as refundRoutes from '../src/http/routes/refunds';
import * as webhookRoutes from '../src/http/routes/webhooks';
import { documentedRoutes, resolveIn, servedRoutes, validateOpenApiDocument } from './support/openapi';

type Schema = Record<string, any>;
type Environment = ApiGatewayConfig['APP_ENV'];

const config = (environment: Environment): ApiGatewayConfig => ({
  APP_ENV: environment,
  LOG_LEVEL: 'silent',
  PORT: 0,
  DATABASE_URL: 'postgres://unused',
  AMQP_URL: 'amqp://unused',
  AMQP_PREFIX: 'unused',
  REDIS_URL: 'redis://unused',
  REDIS_PREFIX: 'unused:',
  ADMIN_TOKEN: 'an-operator-token-of-at-least-32-characters',
  RPC_TIMEOUT_MS: 1000,
  RATE_LIMIT_PER_MINUTE: 60,
  CHECKOUT_RATE_LIMIT_PER_MINUTE: 120,
  ADMIN_RATE_LIMIT_PER_MINUTE: 30,
  IDEMPOTENCY_RESPONSE_KEY: Buffer.alloc(32, 7).toString('base64'),
  IDEMPOTENCY_PURGE_INTERVAL_MS: 60_000,
  PUBLIC_BASE_URL: 'https://pay.example.com',
  TRUST_PROXY: false,
});

const documentOf = (environment: Environment) =>
  buildOpenApiDocument({ environment, rateLimits: { api: 60, admin: 30, checkout: 120 } });

/** The codes an error answer's schema allows (one component per code). */
function codesOf(document: OpenApiDocument, schema: Schema): ErrorCode[] {
  return (schema.oneOf ?? [schema]).map(
    (ref: Schema) => resolveIn(document, ref).properties.error.properties.code.const as ErrorCode,
  );
}

/** Each documented error answer (a body of error components): its operation, status and codes. */
function errorAnswers(document: OpenApiDocument) {
  const answers: Array<{ at: string; status: string; codes: ErrorCode[] }> = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      for (const [status, response] of Object.entries(operation.responses as Record<string, Schema>)) {
        const schema = response.content?.['application/json']?.schema as Schema | undefined;
        const refs = schema ? ((schema.oneOf ?? [schema]) as Schema[]).map((option) => option.$ref) : [];
        if (refs.length > 0 && refs.every((ref) => typeof ref === 'string' && ref.endsWith('Error')))
          answers.push({
            at: `${method.toUpperCase()} ${path} ${status}`,
            status,
            codes: codesOf(document, schema!),
          });
      }
    }
  }
  return answers;
}

// What a joi schema states and what a JSON Schema states, as the same lines: fields, requirements, enums, nested
// objects and conditions. Comparing them checks the conversion lost nothing the gateway enforces.

const enumLine = (path: string, values: unknown[]) =>
  `${path} one of ${JSON.stringify(values.filter((value) => value !== null).sort())}`;

function joiFacts(description: Schema, prefix = ''): string[] {
  const facts: string[] = [];
  for (const [key, field] of Object.entries((description.keys ?? {}) as Record<string, Schema>)) {
    const path = `${prefix}${key}`;
    facts.push(path);
    if (field.flags?.presence === 'required') facts.push(`${path} required`);
    if (field.flags?.only) facts.push(enumLine(path, field.allow));
    if (field.type === 'object') facts.push(...joiFacts(field, `${path}.`));
    const item = field.items?.[0] as Schema | undefined;
    if (item?.flags?.only) facts.push(enumLine(`${path}[]`, item.allow));
  }
  for (const when of (description.whens ?? []) as Schema[]) {
    const condition = joiFacts(when.is).filter((fact) => fact.includes(' one of '));
    facts.push(...joiFacts(when.then, `if ${condition.join(' and ')}: ${prefix}`));
  }
  for (const dependency of (description.dependencies ?? []) as Schema[]) {
    facts.push(`${dependency.rel} of ${dependency.peers.join(', ')}`);
  }
  return facts.sort();
}

function jsonFacts(schema: Schema, prefix = ''): string[] {
  const facts: string[] = [];
  for (const [key, field] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    const path = `${prefix}${key}`;
    facts.push(path);
    if (schema.required?.includes(key)) facts.push(`${path} required`);
    if (field.enum) facts.push(enumLine(path, field.enum));
    if ('const' in field) facts.push(enumLine(path, [field.const]));
    if (field.properties) facts.push(...jsonFacts(field, `${path}.`));
    if (field.items?.enum) facts.push(enumLine(`${path}[]`, field.items.enum));
  }
  if (schema.if) {
    const condition = jsonFacts(schema.if).filter((fact) => fact.includes(' one of '));
    facts.push(...jsonFacts(schema.then, `if ${condition.join(' and ')}: ${prefix}`));
  }
  if (schema.anyOf?.every((branch: Schema) => branch.required?.length === 1)) {
    facts.push(`or of ${schema.anyOf.map((branch: Schema) => branch.required[0]).join(', ')}`);
  }
  return facts.sort();
}

describe('the OpenAPI document', () => {
  const document = documentOf('sandbox');

  test('is a valid OpenAPI 3.1 document, in sandbox and in production', () => {
    for (const environment of ['sandbox', 'production'] as const) {
      const result = validateOpenApiDocument(documentOf(environment));
      expect({ environment, ...result }).toEqual({ environment, valid: true, version: '3.1', errors: null });
    }
  });

  test.each(['sandbox', 'production'] as const)(
    'lists exactly the routes the %s gateway serves, method and path',
    (environment) => {
      const redis = new Redis({ lazyConnect: true });
      const app = createApp({
        config: config(environment),
        dataSource: {} as DataSource,
        broker: {} as Broker,
        redis,
        logger: testLogger('openapi'),
      });
      redis.disconnect();
      const served = servedRoutes(app);
      expect(served).toContain('POST /v1/payments');
      expect(served.includes('POST /v1/sandbox/payments/{payment_id}/simulate')).toBe(
        environment === 'sandbox',
      );
      expect(documentedRoutes(documentOf(environment))).toEqual(served);
    },
  );

  test('answers exactly the contract’s error codes, each with its catalog status', () => {
    const answers = errorAnswers(document);
    const misplaced = answers.flatMap(({ at, status, codes }) =>
      codes.filter((code) => errorCatalog[code].status !== Number(status)).map((code) => `${at}: ${code}`),
    );
    expect(misplaced).toEqual([]);
    expect([...new Set(answers.flatMap(({ codes }) => codes))].sort()).toEqual([...errorCodes].sort());
    const components = Object.keys(document.components.schemas).filter((name) => name.endsWith('Error'));
    expect(components).toHaveLength(errorCodes.length);
  });

  test('every /v1 route answers an unknown key, the rate limit and a dependency down; every POST an idempotency conflict', () => {
    const v1 = Object.entries(document.paths)
      .filter(([path]) => path.startsWith('/v1/'))
      .flatMap(([, methods]) => Object.entries(methods));
    for (const [method, operation] of v1) {
      const responses = operation.responses as Record<string, Schema>;
      expect({ op: operation.operationId, statuses: Object.keys(responses) }).toEqual({
        op: operation.operationId,
        statuses: expect.arrayContaining(['401', '429', '503', ...(method === 'post' ? ['409'] : [])]),
      });
      expect(operation.security).toEqual([{ apiKey: [] }]);
    }
  });

  test('states the fields, requirements and enums of every body and query schema the routes validate with', () => {
    for (const op of operations) {
      const documented = document.paths[op.path]?.[op.method];
      if (!documented) continue;
      if (op.body) {
        const schema = document.components.schemas[op.body.name]!;
        expect({ op: op.operationId, facts: jsonFacts(schema) }).toEqual({
          op: op.operationId,
          facts: joiFacts(op.body.schema.describe()),
        });
      }
      const parameters = (documented.parameters as Schema[]).filter((parameter) => parameter.in === 'query');
      const asSchema = {
        properties: Object.fromEntries(parameters.map((parameter) => [parameter.name, parameter.schema])),
        required: parameters.filter((parameter) => parameter.required).map((parameter) => parameter.name),
      };
      const queryFacts = (op.query ?? []).flatMap((schema) => joiFacts(schema.describe())).sort();
      expect({ op: op.operationId, facts: jsonFacts(asSchema) }).toEqual({
        op: op.operationId,
        facts: queryFacts,
      });
    }
  });

  test('gives every request body examples its route accepts, which the document publishes for "Try it out"', () => {
    for (const op of operations) {
      if (!op.body) continue;
      const documented = document.paths[op.path]?.[op.method]?.requestBody as Schema | undefined;
      expect({ op: op.operationId, examples: documented?.content['application/json'].examples }).toEqual({
        op: op.operationId,
        examples: op.body.examples,
      });
      for (const [name, { value }] of Object.entries(op.body.examples)) {
        const { error } = op.body.schema.validate(value);
        expect({ op: op.operationId, name, error: error?.message }).toEqual({
          op: op.operationId,
          name,
          error: undefined,
        });
      }
    }
  });

  test('prefills no path or header parameter, so "Try it out" never sends an id that names nothing', () => {
    const prefilled = Object.values(document.paths)
      .flatMap((methods) => Object.values(methods))
      .flatMap((operation) => operation.parameters as Schema[])
      .map((parameter) =>
        '$ref' in parameter
          ? (parameter.$ref as string)
              .split('/')
              .slice(1)
              .reduce((node: Schema, key) => node[key], document)
          : parameter,
      )
      .filter((parameter) => parameter.in !== 'query')
      .filter(
        (parameter) => 'example' in parameter || 'examples' in parameter || 'default' in parameter.schema,
      );
    expect(prefilled).toEqual([]);
  });

  test('documents every body and query schema the route modules export', () => {
    const used = new Set<Joi.Schema>(
      operations.flatMap((op) => [...(op.body ? [op.body.schema] : []), ...(op.query ?? [])]),
    );
    const modules = {
      adminRoutes,
      checkoutRoutes,
      customerRoutes,
      eventRoutes,
      hostedCheckoutRoutes,
      paymentRoutes,
      refundRoutes,
      webhookRoutes,
    };
    const undocumented = Object.entries(modules).flatMap(([module, exports]) =>
      Object.entries(exports)
        .filter(([, value]) => Joi.isSchema(value) && !used.has(value as Joi.Schema))
        .map(([name]) => `${module}.${name}`),
    );
    expect(undocumented).toEqual([]);
  });

  test('describes a webhook delivery for every event a webhook can subscribe to, and the test event', () => {
    expect(Object.keys(document.webhooks).sort()).toEqual([...webhookEventNames, 'webhook.test'].sort());
    for (const [type, webhook] of Object.entries(document.webhooks)) {
      const body = resolveIn(
        document,
        (webhook as Schema).post.requestBody.content['application/json'].schema,
      );
      expect(body.properties.type.enum ?? [body.properties.type.const]).toEqual([type]);
      const data = body.properties.data.$ref as string;
      expect(data).toBe(
        type.startsWith('payment.')
          ? '#/components/schemas/EventPayment'
          : type.startsWith('refund.')
            ? '#/components/schemas/EventRefund'
            : '#/components/schemas/WebhookTestData',
      );
    }
  });
});
