/**
 * The request and answer types of the gateway's operations, written by `pnpm generate:sdk` from the JSON Schema the
 * gateway's OpenAPI document publishes for them: each schema the operations and the webhook deliveries use becomes a
 * type of the same name, and `OperationTypes` gives each operation's body, query and success answer by its operation
 * id. Two files: the SDK's (packages/sdk/src/generated/types.ts: the public API, the query as a caller sends it) and
 * the gateway's (packages/contracts/src/generated/operation-types.ts: every JSON operation, the public API, the
 * sandbox, the operator API and the hosted checkout's calls, the query as the gateway's check gives it to a handler,
 * a parameter with a default always there), which types the handlers of the operation table. The SDK depends on no
 * workspace package, hence two files. services/api-gateway/test/sdk-routes.unit.test.ts fails when one is stale.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { operations } from '../services/api-gateway/src/http/openapi';
import { sandboxDocument } from './operation-document';
import type { Area } from '../services/api-gateway/src/http/operation';

export const SDK_TYPES_FILE = join(__dirname, '..', 'packages', 'sdk', 'src', 'generated', 'types.ts');
export const OPERATION_TYPES_FILE = join(
  __dirname,
  '..',
  'packages',
  'contracts',
  'src',
  'generated',
  'operation-types.ts',
);

type Schema = Record<string, unknown>;

const REF_PREFIX = '#/components/schemas/';

function refName(ref: unknown): string {
  if (typeof ref !== 'string' || !ref.startsWith(REF_PREFIX))
    throw new Error(`unsupported $ref ${String(ref)}`);
  return ref.slice(REF_PREFIX.length);
}

function doc(description: unknown): string {
  return typeof description === 'string'
    ? `/** ${description.replace(/\*\//g, '*\\/').replace(/\n+/g, ' ')} */\n`
    : '';
}

function key(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name);
}

function literal(value: unknown): string {
  return value === null ? 'null' : JSON.stringify(value);
}

const SCALARS: Record<string, string> = {
  string: 'string',
  integer: 'number',
  number: 'number',
  boolean: 'boolean',
  null: 'null',
};

/** The TypeScript type of a JSON schema, as far as the document uses JSON Schema. */
function typeOf(schema: Schema | undefined): string {
  if (schema === undefined || Object.keys(schema).length === 0) return 'unknown';
  if (schema.$ref !== undefined) return refName(schema.$ref);
  if ('const' in schema) return literal(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map(literal).join(' | ');
  for (const combinator of ['anyOf', 'oneOf'] as const) {
    const members = schema[combinator];
    // A list of `required` alternatives (at least one of the fields) constrains values, not the type.
    if (
      Array.isArray(members) &&
      (members as Schema[]).some((member) => !('required' in member && Object.keys(member).length === 1))
    ) {
      return (members as Schema[]).map((member) => typeOf(member)).join(' | ');
    }
  }
  if (Array.isArray(schema.allOf))
    return (schema.allOf as Schema[]).map((member) => `(${typeOf(member)})`).join(' & ');
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  return types
    .map((type) => {
      if (type === 'object') return objectType(schema);
      if (type === 'array') return `(${typeOf(schema.items as Schema | undefined)})[]`;
      const scalar = SCALARS[type];
      if (scalar === undefined) throw new Error(`unsupported schema type ${String(type)}`);
      return scalar;
    })
    .join(' | ');
}

function properties(props: Record<string, Schema>, required: readonly string[]): string {
  return Object.entries(props)
    .map(
      ([name, prop]) =>
        `${doc(prop.description)}${key(name)}${required.includes(name) ? '' : '?'}: ${typeOf(prop)};`,
    )
    .join('\n');
}

/**
 * An object: its properties; a conditional (`if` one property is a constant, `then` more) becomes a union of the
 * object without the condition (the property's other values; what `then` narrows keeps the base's schema) and with it.
 */
function objectType(schema: Schema): string {
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  const required = (schema.required ?? []) as string[];
  if (schema.properties === undefined && typeof schema.additionalProperties === 'object') {
    return `Record<string, ${typeOf(schema.additionalProperties as Schema)}>`;
  }
  const condition = schema.if as Schema | undefined;
  const then = schema.then as Schema | undefined;
  if (condition === undefined || then === undefined) return `{\n${properties(props, required)}\n}`;
  const tested = Object.entries((condition.properties ?? {}) as Record<string, Schema>);
  const [name, test] = tested[0] ?? [];
  if (tested.length !== 1 || name === undefined || test === undefined || !('const' in test)) {
    throw new Error('unsupported conditional schema');
  }
  const values = ((props[name]?.enum ?? []) as unknown[]).filter((value) => value !== test.const);
  const added = (then.properties ?? {}) as Record<string, Schema>;
  // A property `then` narrows stays in the other member as what the base allows (`unknown` for any value): the server
  // accepts it there and ignores it, so a handler must not read it without testing the condition first.
  const without = Object.fromEntries(
    Object.entries(props).map(([prop, propSchema]) => [prop, prop === name ? { enum: values } : propSchema]),
  );
  const withIt = { ...props, ...added, [name]: { const: test.const } };
  const withRequired = [...new Set([...required, ...((then.required ?? []) as string[])])];
  return `{\n${properties(without, required)}\n} | {\n${properties(withIt, withRequired)}\n}`;
}

function jsonBody(content: unknown): Schema | undefined {
  return (content as { 'application/json'?: { schema?: Schema } } | undefined)?.['application/json']?.schema;
}

/** Every component a schema names, and those they name. */
function collectRefs(schema: unknown, components: Record<string, Schema>, into: Set<string>): void {
  if (Array.isArray(schema)) {
    for (const item of schema) collectRefs(item, components, into);
  } else if (schema !== null && typeof schema === 'object') {
    for (const [name, value] of Object.entries(schema)) {
      if (name === '$ref') {
        const component = refName(value);
        if (!into.has(component)) {
          into.add(component);
          collectRefs(components[component], components, into);
        }
      } else {
        collectRefs(value, components, into);
      }
    }
  }
}

interface ParameterObject {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema: Schema;
}

interface TypesFile {
  file: string;
  /** The areas of the operations the file types. */
  areas: readonly Area[];
  /** The query as the gateway's check gives it (a parameter with a default always there), or as a caller sends it. */
  checkedQuery: boolean;
  /** The file's opening comment, after the line naming its generator. */
  header: string[];
  /** What `OperationTypes` says of itself. */
  operationsDoc: string;
}

/** The file's text, as the project's formatter writes it (its command line: its API loads itself as a module). */
function renderTypes({ file, areas, checkedQuery, header, operationsDoc }: TypesFile): string {
  const document = sandboxDocument();
  const components = document.components.schemas as Record<string, Schema>;
  const used = new Set<string>();
  const operationTypes: string[] = [];
  for (const op of operations.filter((entry) => areas.includes(entry.area))) {
    const spec = document.paths[op.path]?.[op.method] as Schema | undefined;
    if (spec === undefined) throw new Error(`${op.operationId} is not in the document`);
    const members: string[] = [];
    const body = jsonBody((spec.requestBody as Schema | undefined)?.content);
    if (body !== undefined) members.push(`body: ${typeOf(body)};`);
    const query = ((spec.parameters ?? []) as ParameterObject[]).filter(
      (parameter) => parameter.in === 'query',
    );
    if (query.length > 0) {
      const fields = Object.fromEntries(
        query.map((parameter) => [
          parameter.name,
          { description: parameter.description, ...parameter.schema },
        ]),
      );
      const required = query
        .filter((parameter) => parameter.required === true || (checkedQuery && 'default' in parameter.schema))
        .map((parameter) => parameter.name);
      members.push(`query: {\n${properties(fields, required)}\n};`);
    }
    const success = Object.entries(spec.responses as Record<string, Schema>).find(([status]) =>
      status.startsWith('2'),
    );
    const answer = jsonBody(success?.[1].content);
    members.push(`answer: ${answer === undefined ? 'undefined' : typeOf(answer)};`);
    collectRefs([body, answer], components, used);
    operationTypes.push(
      `${doc(`${op.method.toUpperCase()} ${op.path}`)}${op.operationId}: {\n${members.join('\n')}\n};`,
    );
  }
  const deliveries = Object.values(document.webhooks).map((webhook) => {
    const delivery = jsonBody((webhook as { post: { requestBody: Schema } }).post.requestBody.content);
    if (delivery === undefined) throw new Error('a webhook without a JSON body');
    return delivery;
  });
  collectRefs(deliveries, components, used);

  const declarations = [...used].sort().map((name) => {
    const schema = components[name] as Schema;
    const type = typeOf(schema);
    return type.startsWith('{') && !type.includes('} | {')
      ? `${doc(schema.description)}export interface ${name} ${type}`
      : `${doc(schema.description)}export type ${name} = ${type};`;
  });
  const text = [
    `// Generated from the gateway's operation table by \`pnpm generate:sdk\` (scripts/generate-sdk-types.ts): do not`,
    ...header.map((line) => `// ${line}`),
    '',
    declarations.join('\n\n'),
    '',
    '/** The body a webhook endpoint receives, one per delivered event type. */',
    `export type DeliveredEvent = ${deliveries.map((schema) => typeOf(schema)).join(' | ')};`,
    '',
    `/** ${operationsDoc} */`,
    `export interface OperationTypes {\n${operationTypes.join('\n')}\n}`,
    '',
  ].join('\n');
  return execFileSync(
    process.execPath,
    [require.resolve('prettier/bin/prettier.cjs'), '--stdin-filepath', file],
    {
      input: text,
      encoding: 'utf8',
    },
  );
}

/** The SDK's file: the public API, the query as a caller sends it. */
export const renderSdkTypes = (): string =>
  renderTypes({
    file: SDK_TYPES_FILE,
    areas: ['api', 'sandbox'],
    checkedQuery: false,
    header: [
      "edit. The JSON Schema of the gateway's OpenAPI document as TypeScript: its schemas by name, and each operation's",
      'body, query and success answer by its operation id.',
    ],
    operationsDoc: 'Each operation of the public API by its operation id.',
  });

/** The gateway's file: every JSON operation, the query as a handler receives it. */
export const renderOperationTypes = (): string =>
  renderTypes({
    file: OPERATION_TYPES_FILE,
    areas: ['api', 'sandbox', 'admin', 'checkout'],
    checkedQuery: true,
    header: [
      "edit. The JSON Schema of the gateway's OpenAPI document as TypeScript: its schemas by name, and each JSON",
      "operation's body, query and success answer by its operation id, as the handlers of the operation table take and",
      'give them (the query as checked: a parameter with a default is always there).',
    ],
    operationsDoc:
      'Each JSON operation (public API, sandbox, operator API, hosted checkout) by its operation id: what its handler takes and answers.',
  });
