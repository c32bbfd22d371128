/**
 * The facts the gateway CLI builds its resource and operator commands from (packages/cli/src/generated/commands.ts),
 * one per operation of the table whose entry has a `cli` field: the command's name and help, the SDK method a merchant
 * command calls (its entry's `sdk`), the route (method, path, path ids in order), the query and body fields as the
 * document publishes them (required, JSON type, fixed values; a dotted field such as `crypto.currency` from the body's
 * nested or conditional schema), and the entry's own choices for the command's fields. Written by `pnpm generate:sdk`
 * with the SDK's files (generate-sdk-routes.ts); the CLI cannot import the gateway, so the facts are written, and
 * sdk-routes.unit.test.ts fails when they are stale.
 */
import { join } from 'node:path';
import { operations, type OperationSpec } from '../services/api-gateway/src/http/openapi';
import { bodySchemaOf, formatted, sandboxDocument, typeOf, type Schema } from './operation-document';

export const CLI_COMMANDS_FILE = join(__dirname, '..', 'packages', 'cli', 'src', 'generated', 'commands.ts');

interface FieldFacts {
  required: boolean;
  type: string;
  values?: unknown[];
  signed?: true;
}

/**
 * A field's facts: its JSON type (a constant's own), its fixed values (an array's items' ones), and whether a number
 * may be negative (an adjustment's amount).
 */
function factsOf(schema: Schema, required: boolean): FieldFacts {
  const type = schema.const !== undefined ? typeof schema.const : typeOf(schema);
  const fixed = schema.const !== undefined ? [schema.const] : (schema.items ?? schema).enum;
  const values = fixed?.filter((value) => value !== null);
  const signed = typeof schema.minimum === 'number' && schema.minimum < 0;
  return { required, type, ...(values === undefined ? {} : { values }), ...(signed ? { signed: true } : {}) };
}

/** A field of an object schema, looked for in its properties and in its conditional branch (`crypto` of a payment). */
function propertyOf(schema: Schema, name: string): Schema | undefined {
  const candidates = [schema.properties?.[name], schema.then?.properties?.[name]].filter(
    (candidate): candidate is Schema => candidate !== undefined,
  );
  return (
    candidates.find((candidate) => candidate.type !== undefined || candidate.const !== undefined) ??
    candidates[0]
  );
}

/** The entry's facts for the CLI; every field its `cli` names must be one of the route's. */
function commandFacts(
  document: ReturnType<typeof sandboxDocument>,
  op: OperationSpec,
): Record<string, unknown> {
  const cli = op.cli!;
  const params = [...op.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
  const spec = document.paths[op.path]?.[op.method] as
    { parameters?: Array<{ name: string; in: string; required?: boolean; schema: Schema }> } | undefined;
  const query = Object.fromEntries(
    (spec?.parameters ?? [])
      .filter((parameter) => parameter.in === 'query')
      .map((parameter) => [parameter.name, factsOf(parameter.schema, parameter.required === true)]),
  );
  const schema = bodySchemaOf(document, op);
  let body: Record<string, FieldFacts> | undefined;
  if (schema !== undefined) {
    const required = new Set(schema.required ?? []);
    body = Object.fromEntries(
      Object.entries(schema.properties ?? {}).map(([name, field]) => [
        name,
        factsOf(field, required.has(name)),
      ]),
    );
    const named = [...Object.keys(cli.fields ?? {}), ...(cli.order ?? [])];
    for (const name of named.filter((field) => field.includes('.'))) {
      let field: Schema | undefined = schema;
      for (const part of name.split('.')) field = field && propertyOf(field, part);
      if (field !== undefined) body[name] = factsOf(field, false);
    }
  }
  for (const name of [...Object.keys(cli.fields ?? {}), ...(cli.order ?? [])])
    if (!params.includes(name) && !(name in query) && !(body && name in body))
      throw new Error(`${op.operationId}: the cli field ${name} is none of the route's fields`);
  if (op.area !== 'admin' && op.sdk === undefined)
    throw new Error(`${op.operationId}: a merchant command calls the SDK, and the entry has no sdk field`);
  return {
    command: cli.command,
    description: cli.description ?? op.summary,
    ...(cli.help === undefined ? {} : { help: cli.help }),
    ...(cli.dashArguments ? { dashArguments: true } : {}),
    ...(cli.order === undefined ? {} : { order: cli.order }),
    ...(cli.idempotencyKey ? { idempotencyKey: true } : {}),
    area: op.area,
    ...(op.area === 'admin' ? {} : { sdk: op.sdk!.method }),
    method: op.method.toUpperCase(),
    path: op.path,
    params,
    query,
    ...(body === undefined ? {} : { body }),
    fields: cli.fields ?? {},
  };
}

/** The file's text, as the project's formatter writes it. */
export function renderCliCommands(): string {
  const document = sandboxDocument();
  const entries = operations
    .filter((op) => op.cli !== undefined)
    .map((op) => `${op.operationId}: ${JSON.stringify(commandFacts(document, op))},`);
  const text = [
    "// Generated from the gateway's operation table by `pnpm generate:sdk` (scripts/generate-cli-commands.ts): do not",
    "// edit. One command per operation whose entry has a `cli` field, by its operation id: the command's name and help,",
    "// the SDK method it calls, its route, the query and body fields as the document publishes them, and the entry's",
    '// choices for its fields.',
    '',
    `export const generatedCommands = {\n${entries.join('\n')}\n} as const;`,
    '',
  ].join('\n');
  return formatted(text, CLI_COMMANDS_FILE);
}
