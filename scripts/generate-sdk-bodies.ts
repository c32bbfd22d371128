/**
 * The body fields of each operation of the public API that takes a JSON body (packages/sdk/src/generated/bodies.ts),
 * from the JSON Schema the gateway's OpenAPI document publishes: in the schema's order, whether each is required, its
 * JSON type and, when it has a fixed set of values, those values. Written by `pnpm generate:sdk` with the route table
 * and the types (generate-sdk-routes.ts). The CLI's command facts (generate-cli-commands.ts) read the bodies with the
 * same `bodySchemaOf` and `typeOf`.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import {
  buildOpenApiDocument,
  operations,
  type OpenApiDocument,
  type OperationSpec,
} from '../services/api-gateway/src/http/openapi';

export const SDK_BODIES_FILE = join(__dirname, '..', 'packages', 'sdk', 'src', 'generated', 'bodies.ts');

export interface Schema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  const?: unknown;
  then?: Schema;
}

/** A field's JSON type, without the `null` a nullable field also takes. */
export function typeOf(schema: Schema): string {
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).filter(
    (type): type is string => type !== undefined && type !== 'null',
  );
  return types[0] ?? 'object';
}

/** The document every generated file is computed from (the sandbox's, which has every operation). */
export const sandboxDocument = (): OpenApiDocument =>
  buildOpenApiDocument({ environment: 'sandbox', rateLimits: { api: 0, admin: 0, checkout: 0 } });

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

/** The file's text, as the project's formatter writes it. */
export function renderSdkBodies(): string {
  const document = sandboxDocument();
  const bodies: string[] = [];
  for (const op of operations.filter((entry) => entry.area === 'api' || entry.area === 'sandbox')) {
    const schema = bodySchemaOf(document, op);
    if (schema === undefined) continue;
    const required = new Set(schema.required ?? []);
    const fields = Object.entries(schema.properties ?? {}).map(([name, field]) => {
      const values = field.enum?.filter((value) => value !== null);
      const facts = [
        `required: ${required.has(name)}`,
        `type: ${JSON.stringify(typeOf(field))}`,
        ...(values === undefined ? [] : [`values: ${JSON.stringify(values)}`]),
      ];
      return `${name}: { ${facts.join(', ')} },`;
    });
    bodies.push(`${op.operationId}: {\n${fields.join('\n')}\n},`);
  }
  const text = [
    "// Generated from the gateway's operation table by `pnpm generate:sdk` (scripts/generate-sdk-bodies.ts): do not",
    '// edit. The body fields of each operation of the public API that takes one, by its operation id, in the order of',
    "// the document's schema: whether each is required, its JSON type, and its values when it has a fixed set.",
    '',
    `export const generatedBodies = {\n${bodies.join('\n')}\n} as const;`,
    '',
  ].join('\n');
  return execFileSync(
    process.execPath,
    [require.resolve('prettier/bin/prettier.cjs'), '--stdin-filepath', SDK_BODIES_FILE],
    { input: text, encoding: 'utf8' },
  );
}
