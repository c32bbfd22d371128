import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Express } from 'express';
import fc from 'fast-check';
import type { OpenApiDocument } from '../../src/http/openapi';

const gatewayDir = join(__dirname, '../..');

/**
 * Validates a document against the OpenAPI 3.1 schemas with @seriousme/openapi-schema-validator. That package is ESM
 * only, which jest's CommonJS runtime cannot load, so it runs in a child node.
 */
export function validateOpenApiDocument(document: unknown): {
  valid: boolean;
  version: string;
  errors: unknown;
} {
  const script = `
    import { Validator } from '@seriousme/openapi-schema-validator';
    const chunks = [];
    for await (const chunk of process.stdin) chunks.push(chunk);
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(Buffer.concat(chunks).toString('utf8')));
    process.stdout.write(JSON.stringify({ valid: result.valid, version: validator.version, errors: result.errors ?? null }));
  `;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: gatewayDir,
    input: JSON.stringify(document),
  });
  return JSON.parse(output.toString('utf8')) as { valid: boolean; version: string; errors: unknown };
}

interface Layer {
  name: string;
  regexp: RegExp & { fast_slash?: boolean };
  route?: { path: string; methods: Record<string, boolean> };
  handle: { stack?: Layer[] };
}

/** `/^\/v1\/?(?=\/|$)/i` -> `/v1`: where express mounted a router (only static prefixes are used). */
function mountPath(layer: Layer): string {
  if (layer.regexp.fast_slash) return '';
  return layer.regexp.source.replace(/^\^/, '').replace('\\/?(?=\\/|$)', '').replace(/\\\//g, '/');
}

/** Every `METHOD /path` (OpenAPI style) the express app routes, read from its router stack. */
export function servedRoutes(app: Express): string[] {
  const found: string[] = [];
  const walk = (stack: Layer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        // A stack's `onPost` (idempotency on every /v1 POST) is mounted as `post('*')`: middleware, not a route.
        if (layer.route.path === '*') continue;
        const path = `${prefix}${layer.route.path}`.replace(/:(\w+)/g, '{$1}');
        for (const method of Object.keys(layer.route.methods)) found.push(`${method.toUpperCase()} ${path}`);
      } else if (layer.name === 'router' && layer.handle.stack) {
        walk(layer.handle.stack, `${prefix}${mountPath(layer)}`);
      }
    }
  };
  walk((app as unknown as { _router: { stack: Layer[] } })._router.stack, '');
  // An entry's own guards (the scope a /v1 operation needs) are a route of its method and path in front of it.
  return [...new Set(found)].sort();
}

/** Every `METHOD /path` of the document. */
export function documentedRoutes(document: OpenApiDocument): string[] {
  return Object.entries(document.paths)
    .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`))
    .sort();
}

type Schema = Record<string, any>;

/** The component a `$ref` names, or the schema itself. */
export function resolveIn(document: OpenApiDocument, schema: Schema): Schema {
  return typeof schema.$ref === 'string'
    ? document.components.schemas[schema.$ref.replace('#/components/schemas/', '')]!
    : schema;
}

/**
 * A concrete path of a documented operation: each path parameter a value its schema accepts (the first of an enum,
 * else a string matching its pattern, so ids have their resource's shape and name nothing that exists).
 */
export function concretePath(document: OpenApiDocument, path: string, method: string): string {
  const parameters = (document.paths[path]![method] as Schema).parameters as Schema[];
  return path.replace(/\{(\w+)\}/g, (_match, name: string) => {
    const schema = resolveIn(document, parameters.find((p) => p.name === name && p.in === 'path')!.schema);
    if (schema.enum) return String(schema.enum[0]);
    const values = fc
      .stringMatching(new RegExp(schema.pattern))
      .filter(
        (value) => value.length >= (schema.minLength ?? 0) && value.length <= (schema.maxLength ?? Infinity),
      );
    return encodeURIComponent(fc.sample(values, { numRuns: 1, seed: 42 })[0]!);
  });
}

/**
 * The document publishes objects open (additive fields must not break clients); against the live stack every object
 * is closed, so a field the gateway answers but the document does not list fails the test.
 */
function closed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(closed);
  if (typeof value !== 'object' || value === null) return value;
  const schema = Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [key, closed(inner)]),
  ) as Schema;
  const hasProperties = typeof schema.properties === 'object' && schema.properties !== null;
  if (hasProperties && !('additionalProperties' in schema) && !('unevaluatedProperties' in schema))
    schema.unevaluatedProperties = false;
  return schema;
}

export interface ResponseCheck {
  /** The operation the request matched, e.g. `GET /v1/payments/{payment_id}`. */
  operation: string;
  errors: string[];
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Checks real answers against the document with Ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1): the
 * operation the request matches, its status, media type, required headers and their schemas, and the JSON body.
 */
export class OpenApiResponseValidator {
  private readonly ajv = new Ajv2020({ allErrors: true, strict: false });
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly templates: Array<{ pattern: RegExp; path: string }>;

  constructor(private readonly document: OpenApiDocument) {
    addFormats(this.ajv);
    this.ajv.addSchema(closed(document) as Schema, 'openapi.json');
    // Literal paths win over templated ones (`/v1/payments` before `/v1/payments/{payment_id}`).
    this.templates = Object.keys(document.paths)
      .map((path) => ({
        path,
        pattern: new RegExp(`^${escapeRegex(path).replace(/\\\{[^}]+\\\}/g, '[^/]+')}$`),
        literal: !path.includes('{'),
      }))
      .sort((a, b) => Number(b.literal) - Number(a.literal))
      .map(({ pattern, path }) => ({ pattern, path }));
  }

  /** The documented path template a concrete path matches. */
  templateOf(path: string): string | undefined {
    return this.templates.find((template) => template.pattern.test(path))?.path;
  }

  private validator(pointer: string): ValidateFunction {
    let validate = this.validators.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `openapi.json#${pointer}` });
      this.validators.set(pointer, validate);
    }
    return validate;
  }

  /** Validates a value against the schema at a JSON pointer of the document. */
  validate(pointer: string, value: unknown): string[] {
    const validate = this.validator(pointer);
    return validate(value)
      ? []
      : (validate.errors ?? []).map(
          (e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`,
        );
  }

  /** Checks a delivery a webhook endpoint received against `webhooks[type]`: its signature headers and its body. */
  checkWebhook(headers: Record<string, string | string[] | undefined>, body: string): ResponseCheck {
    const type = String((JSON.parse(body) as { type?: unknown }).type);
    const operation = `webhook ${type}`;
    const post = (this.document.webhooks[type] as { post?: Schema } | undefined)?.post;
    if (!post) return { operation, errors: ['not a documented webhook'] };
    const errors: string[] = [];
    const pointer = `/webhooks/${type}/post`;
    (post.parameters as Schema[]).forEach((parameter, index) => {
      const value = headers[String(parameter.name)];
      if (value === undefined) {
        if (parameter.required) errors.push(`header ${String(parameter.name)} is missing`);
        return;
      }
      errors.push(
        ...this.validate(`${pointer}/parameters/${index}/schema`, value).map(
          (e) => `header ${parameter.name}: ${e}`,
        ),
      );
    });
    const bodyPointer = `${pointer}/requestBody/content/application~1json/schema`;
    errors.push(...this.validate(bodyPointer, JSON.parse(body)).map((e) => `body ${e}`));
    return { operation, errors };
  }

  check(
    method: string,
    path: string,
    response: { status: number; headers: Headers; body: string },
  ): ResponseCheck {
    const template = this.templateOf(path);
    const operation = `${method.toUpperCase()} ${template ?? path}`;
    const operationObject = template
      ? (this.document.paths[template]?.[method.toLowerCase()] as Schema | undefined)
      : undefined;
    if (!template || !operationObject) return { operation, errors: ['not a documented operation'] };
    const responses = operationObject.responses as Record<string, Schema>;
    const status = String(response.status);
    const documented = responses[status];
    if (!documented) return { operation, errors: [`status ${status} is not documented`] };
    const errors: string[] = [];
    const pointer = `/paths/${template.replace(/~/g, '~0').replace(/\//g, '~1')}/${method.toLowerCase()}/responses/${status}`;
    for (const [name, header] of Object.entries((documented.headers ?? {}) as Record<string, Schema>)) {
      const value = response.headers.get(name);
      if (value === null) {
        if (header.required) errors.push(`header ${name} is missing`);
        continue;
      }
      errors.push(
        ...this.validate(`${pointer}/headers/${name}/schema`, value).map((e) => `header ${name}: ${e}`),
      );
    }
    const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
    const content = (documented.content ?? {}) as Record<string, Schema>;
    if (!(mediaType in content)) errors.push(`media type ${mediaType || '(none)'} is not documented`);
    else if (mediaType === 'application/json') {
      const body: unknown = JSON.parse(response.body);
      errors.push(
        ...this.validate(`${pointer}/content/application~1json/schema`, body).map((e) => `body ${e}`),
      );
    }
    return { operation, errors };
  }
}
