import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { decodeProtectedHeader } from 'jose';

/** The Central Bank's API Pix document vendored next to the simulator (see spec/SOURCE.md for its version). */
export const API_PIX_SPEC_PATH = join(__dirname, '..', '..', 'spec', 'openapi.yaml');

type Schema = Record<string, unknown>;
interface MediaType {
  schema?: Schema;
}
interface Operation {
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ name: string; in: string; schema?: Schema }>;
  requestBody?: { required?: boolean; content?: Record<string, MediaType> };
  responses: Record<string, { content?: Record<string, MediaType> }>;
  callbacks?: Record<string, Record<string, Record<string, Operation>>>;
}
interface PathItem {
  parameters?: Array<{ name: string; in: string; schema?: Schema }>;
  [method: string]: unknown;
}

export interface RecordedReply {
  status: number;
  contentType: string | undefined;
  /** Raw text, as it came over the wire. */
  body: string;
}

/** Where a message breaks the document; empty when it conforms. */
export type Violations = string[];

/**
 * The API Pix document, dereferenced once, with a JSON Schema validator per schema it names. Requests are checked
 * against the operation's parameters and request body, answers against the status and media type the operation
 * declares, callbacks against the `listaPix` callback of `PUT /webhook/{chave}`.
 */
export class ApiPixSpec {
  private readonly ajv: Ajv;
  private readonly compiled = new WeakMap<object, ValidateFunction>();
  private readonly templates: Array<{ template: string; pattern: RegExp; literals: number }>;

  private constructor(private readonly document: { paths: Record<string, PathItem> }) {
    // OpenAPI 3.0 schemas carry keywords JSON Schema does not know (`example`, `maximum` on an array...): not strict.
    this.ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(this.ajv);
    this.templates = Object.keys(document.paths)
      .map((template) => ({
        template,
        pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
        literals: template.split('/').filter((segment) => segment && !segment.startsWith('{')).length,
      }))
      // `/loc` must win over `/{pixUrlAccessToken}`: the most literal template first.
      .sort((a, b) => b.literals - a.literals);
  }

  static async load(): Promise<ApiPixSpec> {
    const document = (await SwaggerParser.validate(API_PIX_SPEC_PATH)) as unknown as {
      paths: Record<string, PathItem>;
    };
    anchorPatterns(document);
    locationsWithoutScheme(document);
    return new ApiPixSpec(document);
  }

  /** The scopes the document asks for an operation (`security: OAuth2: [...]`). */
  scopesOf(method: string, path: string): string[] {
    const { operation } = this.operation(method, path);
    return (operation?.security ?? []).flatMap((requirement) => requirement.OAuth2 ?? []);
  }

  /** A request to `path` (relative to the API Pix base, e.g. `/cob/abc...`) with its JSON body text. */
  validateRequest(method: string, path: string, body: string): Violations {
    const { operation, pathItem, params, template } = this.operation(method, path);
    if (!operation || !pathItem) return [`${method} ${path}: no such operation in API Pix`];
    const violations: Violations = [];
    for (const parameter of [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])]) {
      if (parameter.in !== 'path' || !parameter.schema) continue;
      violations.push(
        ...this.check(parameter.schema, params[parameter.name], `${template} path ${parameter.name}`),
      );
    }
    const content = operation.requestBody?.content;
    if (content === undefined) {
      if (body.length > 0) violations.push(`${method} ${template}: the operation takes no body`);
      return violations;
    }
    const schema = content['application/json']?.schema;
    if (!schema) return [...violations, `${method} ${template}: no JSON body in the document`];
    return [...violations, ...this.check(schema, parseJson(body), `${method} ${template} body`)];
  }

  /** An answer to `method path`: its status must be one the operation lists, its body that status's schema. */
  validateResponse(method: string, path: string, reply: RecordedReply): Violations {
    const { operation, template } = this.operation(method, path);
    if (!operation) return [`${method} ${path}: no such operation in API Pix`];
    const response = operation.responses[String(reply.status)] ?? operation.responses.default;
    if (!response)
      return [`${method} ${template}: status ${reply.status} is not among the documented answers`];
    const where = `${method} ${template} ${reply.status}`;
    if (!response.content) return reply.body.length > 0 ? [`${where}: the document declares no body`] : [];
    const mediaType = (reply.contentType ?? '').split(';')[0]!.trim();
    const declared = response.content[mediaType];
    if (!declared?.schema)
      return [`${where}: media type ${mediaType} is not ${Object.keys(response.content).join(' or ')}`];
    const value = mediaType === 'application/jose' ? jwsPayload(reply.body) : parseJson(reply.body);
    return this.check(declared.schema, value, where);
  }

  /** A PSP callback body (`POST {webhookUrl}/pix`), per the `listaPix` callback of `PUT /webhook/{chave}`. */
  validateCallback(body: string): Violations {
    const put = this.document.paths['/webhook/{chave}']?.put as Operation;
    const callback = put.callbacks?.listaPix?.['{$request.body#/webhookUrl}/pix']?.post;
    const schema = callback?.requestBody?.content?.['application/json']?.schema;
    if (!schema) return ['the document has no listaPix callback schema'];
    return this.check(schema, parseJson(body), 'callback POST {webhookUrl}/pix');
  }

  private operation(method: string, path: string) {
    const match = this.templates.find(({ pattern }) => pattern.test(path));
    if (!match) return { template: path, params: {} as Record<string, string> };
    const pathItem = this.document.paths[match.template]!;
    const operation = pathItem[method.toLowerCase()] as Operation | undefined;
    const names = [...match.template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    const values = new RegExp(`^${match.template.replace(/\{[^}]+\}/g, '([^/]+)')}$`).exec(path)!.slice(1);
    const params = Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(values[i]!)]));
    return { operation, pathItem, params, template: match.template };
  }

  private check(schema: Schema, value: unknown, where: string): Violations {
    let validate = this.compiled.get(schema);
    if (!validate) {
      validate = this.ajv.compile(schema);
      this.compiled.set(schema, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).map(
      (error) =>
        `${where}: ${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params)}`,
    );
  }
}

/**
 * The document's patterns (`[a-zA-Z0-9]{26,35}`, `\d{1,10}\.\d{2}`) describe whole values, as its texts say (a txid
 * "de 26 a 35 caracteres"), but JSON Schema matches a pattern anywhere in the string: anchored here, so a 40-character
 * txid or `"1.234"` fails as it would at a PSP. Patterns written as JavaScript literals between slashes (a CPF's
 * `/^\d{11}$/`, in a debtor, a payer and query parameters) mean the regular expression inside them, already anchored;
 * taken literally, they would ask for the slashes in the value.
 */
function anchorPatterns(node: unknown, seen = new Set<unknown>()): void {
  if (typeof node !== 'object' || node === null || seen.has(node)) return;
  seen.add(node);
  const record = node as Record<string, unknown>;
  if (typeof record.pattern === 'string' && /^\/.+\/$/.test(record.pattern))
    record.pattern = record.pattern.slice(1, -1);
  else if (typeof record.pattern === 'string' && !record.pattern.startsWith('^'))
    record.pattern = `^(?:${record.pattern})$`;
  for (const value of Object.values(record)) anchorPatterns(value, seen);
}

/**
 * The document declares every `location` as `format: uri` while its own examples and every BR Code carry it without a
 * scheme (`pix.example.com/qr/v2/...`): a URI reference is what it means there. Every other `uri` (a webhook URL, a
 * problem type) stays a full URI.
 */
function locationsWithoutScheme(node: unknown, seen = new Set<unknown>()): void {
  if (typeof node !== 'object' || node === null || seen.has(node)) return;
  seen.add(node);
  const record = node as Record<string, unknown>;
  const location = (record.properties as Record<string, { format?: unknown }> | undefined)?.location;
  if (location?.format === 'uri') location.format = 'uri-reference';
  for (const value of Object.values(record)) locationsWithoutScheme(value, seen);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The payload of a compact JWS (`header.payload.signature`), after checking it is one; the signature is not. */
function jwsPayload(text: string): unknown {
  const parts = text.split('.');
  if (parts.length !== 3) return `not a compact JWS: ${text.slice(0, 40)}`;
  decodeProtectedHeader(text);
  return parseJson(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
}
