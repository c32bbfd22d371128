import { backboneErrorCodes, publicIdPattern, type ErrorCode } from '@gateway/contracts';
import { REQUEST_ID, REQUEST_ID_HEADER } from '../request-context';
import type { Environment } from '../../domain/api-key';
import { API_KEY_HEADER } from '../identity';
import { IDEMPOTENCY_KEY, IDEMPOTENCY_KEY_HEADER, REPLAYED_HEADER } from '../idempotency';
import { RATE_LIMIT_HEADERS } from '../rate-limit';
import { describeApi, type RateLimits } from './description';
import { addErrorSchemas, codesByStatus, errorBodySchema } from './errors';
import { SchemaComponents, type JsonSchema } from './json-schema';
import { servedOperations, tags, type Answer, type Area, type OperationSpec } from './operations';
import { webhookOperations } from './webhooks';

export interface OpenApiOptions {
  environment: Environment;
  rateLimits: RateLimits;
}

export type OpenApiDocument = Record<string, unknown> & {
  info: { title: string; version: string; description: string };
  paths: Record<string, Record<string, JsonSchema>>;
  webhooks: Record<string, JsonSchema>;
  components: { schemas: Record<string, JsonSchema> } & Record<string, unknown>;
};

/** The version of the interface the document describes (docs/api.md#versions-and-environments); changes are additive. */
const API_VERSION = '1.0.0';

/** What a key or token, a rate limit and JSON body parsing in front of every route may answer (app.ts). */
const GUARDED: ErrorCode[] = [
  'INVALID_JSON',
  'UNAUTHORIZED',
  'PAYLOAD_TOO_LARGE',
  'INVALID_FIELDS',
  'RATE_LIMITED',
  'SERVICE_UNAVAILABLE',
];
/** What answers an area's routes whatever they do (the query's NUL check is INVALID_FIELDS past /healthz). */
const AREA_ERRORS: Record<Area, ErrorCode[]> = {
  api: GUARDED,
  sandbox: GUARDED,
  admin: GUARDED,
  checkout: ['INVALID_FIELDS', 'RATE_LIMITED', 'SERVICE_UNAVAILABLE'],
  // Its not-found and try-again answers are HTML pages (its `answers`).
  'checkout-page': ['INVALID_FIELDS', 'RATE_LIMITED'],
  public: [],
};
const LIMITED: ReadonlySet<Area> = new Set<Area>(['api', 'sandbox', 'admin', 'checkout', 'checkout-page']);
const SECURITY: Partial<Record<Area, JsonSchema[]>> = {
  api: [{ apiKey: [] }],
  sandbox: [{ apiKey: [] }],
  admin: [{ adminToken: [] }],
};

/** What an operation's description says of the scope it needs. */
export const scopeSentence = (scope: string): string => `Needs the API key scope \`${scope}\`.`;

const integerHeader = (description: string, required: boolean) => ({
  description,
  required,
  schema: { type: 'string', pattern: '^[0-9]+$' },
});

function rateLimitHeaders(required: boolean): Record<string, JsonSchema> {
  return {
    [RATE_LIMIT_HEADERS.limit]: integerHeader('Requests allowed per rolling minute.', required),
    [RATE_LIMIT_HEADERS.remaining]: integerHeader('Requests left in the window.', required),
    [RATE_LIMIT_HEADERS.reset]: integerHeader('Seconds until a request is counted again.', required),
  };
}

const retryAfter = { 'Retry-After': integerHeader('Seconds to wait before trying again.', true) };
const requestId = {
  [REQUEST_ID_HEADER]: {
    description: `The request's id: the caller's \`${REQUEST_ID_HEADER}\` when it has this shape, else a new one. Quote it when asking for support.`,
    required: true,
    schema: { type: 'string', pattern: REQUEST_ID.source },
  },
};
const replayed = {
  [REPLAYED_HEADER]: {
    description: `\`true\` when this is the stored answer of an earlier request with the same ${IDEMPOTENCY_KEY_HEADER}.`,
    required: false,
    schema: { type: 'string', const: 'true' },
  },
};

const isIdempotent = (op: OperationSpec) =>
  (op.area === 'api' || op.area === 'sandbox') && op.method === 'post';

/** The headers an answer of `status` carries on this route. */
function answerHeaders(op: OperationSpec, status: number): Record<string, JsonSchema> {
  const success = status < 400;
  return {
    ...requestId,
    ...(LIMITED.has(op.area) ? rateLimitHeaders(success || status === 429) : {}),
    ...(status === 429 || status === 503 ? retryAfter : {}),
    ...(isIdempotent(op) && status < 500 ? replayed : {}),
  };
}

/** Whether a converted schema requires anything (then an empty body is MISSING_FIELDS). */
const requiresFields = (schema: unknown): boolean =>
  typeof schema === 'object' &&
  schema !== null &&
  Object.entries(schema).some(([keyword, value]) =>
    keyword === 'required' ? Array.isArray(value) && value.length > 0 : requiresFields(value),
  );

class DocumentBuilder {
  readonly components = new SchemaComponents();

  constructor() {
    addErrorSchemas(this.components);
  }

  /** Every code the route may answer: its area's, its body's, its path ids', its commands' and its own. */
  private errorCodes(op: OperationSpec, body: JsonSchema | undefined): Set<ErrorCode> {
    const codes = new Set<ErrorCode>(['INTERNAL_ERROR', ...AREA_ERRORS[op.area], ...(op.errors ?? [])]);
    if (body) {
      for (const code of ['INVALID_JSON', 'PAYLOAD_TOO_LARGE', 'INVALID_FIELDS'] as const) codes.add(code);
      if (requiresFields(body)) codes.add('MISSING_FIELDS');
    }
    if (isIdempotent(op)) codes.add('IDEMPOTENCY_CONFLICT');
    // An API key without the scope the operation declares is refused.
    if (op.scope !== undefined) codes.add('FORBIDDEN');
    if (Object.values(op.params ?? {}).some((param) => typeof param === 'string')) codes.add('NOT_FOUND');
    for (const command of op.commands ?? []) {
      for (const code of [...command.refusals, ...backboneErrorCodes]) codes.add(code);
    }
    return codes;
  }

  private parameters(op: OperationSpec): JsonSchema[] {
    const templated = [...op.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
    const declared = Object.keys(op.params ?? {});
    if (templated.join() !== declared.join())
      throw new Error(
        `${op.operationId}: path parameters ${templated.join()} but declared ${declared.join()}`,
      );
    const path = Object.entries(op.params ?? {}).map(([name, param]) => ({
      name,
      in: 'path',
      required: true,
      ...(typeof param === 'string'
        ? {
            description: `\`${param}_\` + 24–64 url-safe characters; any other value is not found.`,
            schema: { type: 'string', pattern: publicIdPattern(param).source },
          }
        : { schema: this.components.of(param) }),
    }));
    const query = (op.query ?? []).flatMap((schema) => {
      const converted = this.components.of(schema) as {
        properties?: Record<string, JsonSchema>;
        required?: string[];
      };
      return Object.entries(converted.properties ?? {}).map(([name, property]) => ({
        name,
        in: 'query',
        required: converted.required?.includes(name) ?? false,
        schema: property,
      }));
    });
    const headers = isIdempotent(op) ? [{ $ref: '#/components/parameters/IdempotencyKey' }] : [];
    return [...path, ...query, ...headers];
  }

  private answer(op: OperationSpec, answer: Answer): JsonSchema {
    const content: Record<string, JsonSchema> = {};
    if (answer.schema) content['application/json'] = { schema: this.components.of(answer.schema) };
    for (const mediaType of answer.mediaTypes ?? []) content[mediaType] = {};
    return { description: answer.description, headers: answerHeaders(op, answer.status), content };
  }

  operation(op: OperationSpec): JsonSchema {
    // Published as a named component (a type name for generated clients); `body` is that schema itself.
    const body = op.body
      ? (this.components.of(op.body.schema.id(op.body.name)), this.components.schemas[op.body.name])
      : undefined;
    const responses: Record<string, JsonSchema> = {};
    for (const answer of op.answers) responses[String(answer.status)] = this.answer(op, answer);
    for (const [status, codes] of codesByStatus(this.errorCodes(op, body))) {
      if (responses[String(status)])
        throw new Error(`${op.operationId}: ${status} is both an answer and an error`);
      responses[String(status)] = {
        description: codes.map((code) => `\`${code}\``).join(', '),
        headers: answerHeaders(op, status),
        content: { 'application/json': { schema: errorBodySchema(codes) } },
      };
    }
    const description = [op.description, op.scope && scopeSentence(op.scope)].filter(Boolean).join('\n\n');
    return {
      operationId: op.operationId,
      tags: [op.tag],
      summary: op.summary,
      ...(description ? { description } : {}),
      // A key's scope as a role of its scheme (OpenAPI 3.1), and as an extension generated clients keep.
      security: op.scope ? [{ apiKey: [op.scope] }] : (SECURITY[op.area] ?? []),
      ...(op.scope ? { 'x-required-scope': op.scope } : {}),
      parameters: this.parameters(op),
      ...(op.body && body
        ? {
            requestBody: {
              required: requiresFields(body),
              content: {
                'application/json': {
                  schema: { $ref: `#/components/schemas/${op.body.name}` },
                  examples: op.body.examples,
                },
              },
            },
          }
        : {}),
      responses,
    };
  }
}

/**
 * The OpenAPI 3.1 document of everything the gateway serves, built from the schemas its routes validate with and the
 * contracts' rules, codes and events (served at /openapi.json, rendered at /docs).
 */
export function buildOpenApiDocument(options: OpenApiOptions): OpenApiDocument {
  const builder = new DocumentBuilder();
  const paths: OpenApiDocument['paths'] = {};
  const tagNames = new Set(tags.map((tag) => tag.name));
  for (const op of servedOperations(options.environment)) {
    if (!tagNames.has(op.tag))
      throw new Error(`${op.operationId}: its tag ${op.tag} is none of the document's tags`);
    (paths[op.path] ??= {})[op.method] = builder.operation(op);
  }
  const webhooks = webhookOperations(builder.components);
  const schemas = Object.fromEntries(
    Object.entries(builder.components.schemas).sort(([a], [b]) => a.localeCompare(b)),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'Brazil payment gateway API',
      version: API_VERSION,
      description: describeApi(options.rateLimits),
    },
    servers: [{ url: '/', description: `This gateway (${options.environment})` }],
    tags,
    paths,
    webhooks,
    components: {
      schemas,
      parameters: {
        IdempotencyKey: {
          name: IDEMPOTENCY_KEY_HEADER,
          in: 'header',
          required: false,
          description:
            'Same key and body within 24 h: the first answer again. Another body: IDEMPOTENCY_CONFLICT.',
          schema: { type: 'string', pattern: IDEMPOTENCY_KEY.source },
        },
      },
      securitySchemes: {
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: API_KEY_HEADER,
          description: "The business's API key.",
        },
        adminToken: { type: 'http', scheme: 'bearer', description: 'The operator token (`ADMIN_TOKEN`).' },
      },
    },
  };
}
