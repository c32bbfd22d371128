/**
 * The SDK's namespaces (packages/sdk/src/generated/methods.ts): one method per public operation of the table (each
 * entry's `sdk` field, which every `api` and `sandbox` entry has), in the table's order, with the entry's JSDoc. The
 * kind of call is derived from the entry: a body makes it `withBody` (`withOptionalBody` when the document requires no
 * field of it, unless the entry says otherwise), a page of `has_more` a `list` whose next page starts after the last
 * item's first id field (`id` or `…_id`), anything else `plain` (with the entry's `goneAnswer`); a method the SDK
 * writes itself (`handWritten`) is taken from client.ts at its place. Written by `pnpm generate:sdk` with the SDK's
 * other files (generate-sdk-routes.ts); the SDK cannot import the gateway, so the namespaces are written, and
 * sdk-routes.unit.test.ts fails when they are stale.
 */
import { join } from 'node:path';
import { operations, scopeSentence, type OperationSpec } from '../services/api-gateway/src/http/openapi';
import { formatted, sandboxDocument, type Schema } from './operation-document';

export const SDK_METHODS_FILE = join(__dirname, '..', 'packages', 'sdk', 'src', 'generated', 'methods.ts');

type Document = ReturnType<typeof sandboxDocument>;

/** The operation's spec as the document publishes it. */
function specOf(document: Document, op: OperationSpec) {
  return document.paths[op.path]?.[op.method] as
    | {
        requestBody?: { required?: boolean };
        responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
      }
    | undefined;
}

function resolve(document: Document, schema: Schema): Schema {
  const components = document.components.schemas as Record<string, Schema>;
  return schema.$ref === undefined ? schema : resolve(document, components[schema.$ref.split('/').pop()!]!);
}

/** The item of a `has_more` page the operation answers, if it answers one. */
function pageItemOf(document: Document, op: OperationSpec): Schema | undefined {
  const success = specOf(document, op)?.responses[String(op.answers[0]!.status)];
  const schema = success?.content?.['application/json']?.schema;
  if (schema === undefined) return undefined;
  const page = resolve(document, schema);
  const data = page.properties?.data;
  if (data?.items === undefined || page.properties?.has_more === undefined) return undefined;
  return resolve(document, data.items);
}

/** The call that makes the method, as the generated file writes it. */
function callOf(document: Document, op: OperationSpec): string {
  const sdk = op.sdk!;
  const [namespace, name] = sdk.method.split('.') as [string, string];
  if (sdk.handWritten) return `own.${namespace}.${name}`;
  const id = `'${op.operationId}'`;
  const item = op.method === 'get' ? pageItemOf(document, op) : undefined;
  if (item !== undefined) {
    const cursor = Object.keys(item.properties ?? {}).find(
      (field) => field === 'id' || field.endsWith('_id'),
    );
    if (cursor === undefined) throw new Error(`${op.operationId}: its page's items have no id field`);
    return `operation.list(${id}, (item) => item.${cursor})`;
  }
  if (op.body !== undefined) {
    const optional = sdk.optionalBody ?? specOf(document, op)?.requestBody?.required !== true;
    return `operation.${optional ? 'withOptionalBody' : 'withBody'}(${id})`;
  }
  const extra = sdk.goneAnswer === undefined ? '' : `, { goneAnswer: ${JSON.stringify(sdk.goneAnswer)} }`;
  return `operation.plain(${id}${extra})`;
}

/** A JSDoc at `indent` spaces: one sentence on one line, more one per line. */
function jsDoc(text: string, indent: number): string[] {
  const pad = ' '.repeat(indent);
  const sentences = text.split(/(?<=\.)\s+/);
  if (sentences.length === 1) return [`${pad}/** ${text} */`];
  return [`${pad}/**`, ...sentences.map((sentence) => `${pad} * ${sentence}`), `${pad} */`];
}

/** The file's text, as the project's formatter writes it. */
export function renderSdkMethods(): string {
  const document = sandboxDocument();
  const namespaces = new Map<string, string[]>();
  const handWritten = new Map<string, string[]>();
  for (const op of operations) {
    const isPublic = op.area === 'api' || op.area === 'sandbox';
    // The SDK is a client of every public route (docs/sdk-and-cli.md), and of no other.
    if (isPublic && op.sdk === undefined)
      throw new Error(`${op.operationId}: a public operation without an sdk field`);
    const sdk = op.sdk;
    if (sdk === undefined) continue;
    if (!isPublic) throw new Error(`${op.operationId}: only public operations have an SDK method`);
    const [namespace, name] = sdk.method.split('.') as [string, string];
    const methods = namespaces.get(namespace) ?? [];
    if (methods.some((line) => line.startsWith(`      ${name}:`)))
      throw new Error(`${op.operationId}: ${sdk.method} is another operation's method`);
    // What the method does, then the scope its key needs.
    const doc = [sdk.description, op.scope && scopeSentence(op.scope)].filter(Boolean).join(' ');
    if (doc) methods.push(...jsDoc(doc, 6));
    methods.push(`      ${name}: ${callOf(document, op)},`);
    namespaces.set(namespace, methods);
    if (sdk.handWritten) handWritten.set(namespace, [...(handWritten.get(namespace) ?? []), name]);
  }
  // One type parameter per hand-written method, so each keeps its own type in its namespace.
  const pascal = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);
  const typeOf = (namespace: string, name: string) => `${pascal(namespace)}${pascal(name)}`;
  const typeParameters = [...handWritten].flatMap(([namespace, names]) =>
    names.map((name) => typeOf(namespace, name)),
  );
  const own = [...handWritten].map(
    ([namespace, names]) =>
      `${namespace}: { ${names.map((name) => `${name}: ${typeOf(namespace, name)}`).join('; ')} }`,
  );
  const text = [
    "// Generated from the gateway's operation table by `pnpm generate:sdk` (scripts/generate-sdk-methods.ts): do not",
    "// edit. The client's namespaces, one method per operation whose entry has an `sdk` field, in the table's order.",
    '',
    "import type { Operations } from '../operations';",
    '',
    '/**',
    ' * Every namespace of the client, each method made by `operation` from its route, or given in `own` when the SDK',
    ' * writes it itself (client.ts).',
    ' */',
    typeParameters.length === 0
      ? 'export function gatewayNamespaces(operation: Operations) {'
      : `export function gatewayNamespaces<${typeParameters.join(', ')}>(operation: Operations, own: { ${own.join('; ')} }) {`,
    '  return {',
    ...[...namespaces].flatMap(([namespace, methods]) => [`    ${namespace}: {`, ...methods, '    },']),
    '  };',
    '}',
    '',
    '/** The namespaces, given the types of the methods the SDK writes itself. */',
    typeParameters.length === 0
      ? 'export type GatewayNamespaces = ReturnType<typeof gatewayNamespaces>;'
      : `export type GatewayNamespaces<${typeParameters.join(', ')}> = ReturnType<typeof gatewayNamespaces<${typeParameters.join(', ')}>>;`,
    '',
  ].join('\n');
  return formatted(text, SDK_METHODS_FILE);
}
