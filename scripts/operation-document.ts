/**
 * What the generators of `pnpm generate:sdk` read of the gateway's OpenAPI document: the document itself (the
 * sandbox's, which has every operation), an operation's body schema with its references resolved, and a field's JSON
 * type. The CLI's command facts (generate-cli-commands.ts) take each body's fields from here.
 */
import { execFileSync } from 'node:child_process';
import {
  buildOpenApiDocument,
  type OpenApiDocument,
  type OperationSpec,
} from '../services/api-gateway/src/http/openapi';

export interface Schema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  const?: unknown;
  minimum?: number;
  then?: Schema;
}

/** A field's JSON type, without the `null` a nullable field also takes. */
export function typeOf(schema: Schema): string {
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).filter(
    (type): type is string => type !== undefined && type !== 'null',
  );
  return types[0] ?? 'object';
}

let built: OpenApiDocument | undefined;

/** The document every generated file is computed from (the sandbox's, which has every operation), built once a run. */
export const sandboxDocument = (): OpenApiDocument =>
  (built ??= buildOpenApiDocument({
    environment: 'sandbox',
    rateLimits: { api: 0, dashboard: 0, admin: 0, checkout: 0 },
  }));

/** The JSON Schema of an operation's JSON body as the document publishes it (references resolved), if it has one. */
export function bodySchemaOf(document: OpenApiDocument, op: OperationSpec): Schema | undefined {
  const components = document.components.schemas as Record<string, Schema>;
  const resolve = (schema: Schema): Schema =>
    schema.$ref === undefined ? schema : resolve(components[schema.$ref.split('/').pop()!]!);
  const spec = document.paths[op.path]?.[op.method] as
    { requestBody?: { content?: Record<string, { schema: Schema }> } } | undefined;
  const body = spec?.requestBody?.content?.['application/json']?.schema;
  return body === undefined ? undefined : resolve(body);
}

/** A generated file's text as the project's formatter writes it. */
export function formatted(text: string, file: string): string {
  return execFileSync(
    process.execPath,
    [require.resolve('prettier/bin/prettier.cjs'), '--stdin-filepath', file],
    { input: text, encoding: 'utf8' },
  );
}
