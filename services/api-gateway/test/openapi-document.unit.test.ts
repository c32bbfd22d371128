import { buildOpenApiDocument, operations } from '../src/http/openapi';

type Schema = Record<string, any>;

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

/**
 * What the document states of its inputs is converted from the joi schemas the routes validate with (joi-to-json and
 * http/openapi/json-schema.ts); the conversion is the one step between the table and the document that no
 * construction guarantees, so it is checked here (what the live app answers is checked by
 * openapi-live-responses.e2e.test.ts).
 */
describe('the OpenAPI document', () => {
  const document = buildOpenApiDocument({
    environment: 'sandbox',
    rateLimits: { api: 60, dashboard: 600, admin: 30, checkout: 120 },
  });

  /** What a local `$ref` (`#/a/b~1c`, a JSON Pointer) names in the document; undefined when nothing. */
  const referenced = (ref: string): Schema | undefined =>
    ref
      .replace(/^#\//, '')
      .split('/')
      .reduce(
        (from: Schema | undefined, key) => from?.[key.replace(/~1/g, '/').replace(/~0/g, '~')],
        document as Schema,
      );

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

  test('prefills no path or header parameter, so "Try it out" never sends an id that names nothing', () => {
    const prefilled = Object.values(document.paths)
      .flatMap((methods) => Object.values(methods))
      .flatMap((operation) => operation.parameters as Schema[])
      .map((parameter) => ('$ref' in parameter ? referenced(String(parameter.$ref))! : parameter))
      .filter((parameter) => parameter.in !== 'query')
      .filter(
        (parameter) => 'example' in parameter || 'examples' in parameter || 'default' in parameter.schema,
      );
    expect(prefilled).toEqual([]);
  });

  test('stays within what Swagger UI resolves alike as OpenAPI 3.0 and 3.1 (the API reference resolves it as 3.0)', () => {
    // The API reference page resolves an opened operation with Swagger UI's OpenAPI 3.0 resolver, seconds faster than
    // its 3.1 one (api-reference.js). Where the two differ, this document must not go: a 3.1 `$ref` may have sibling
    // keywords, which 3.0 ignores, and 3.1 schemas may be found by `$id`, `$anchor` or `$dynamicRef`; the resolvers
    // merge `allOf` differently; and the 3.1 one alone copies a parameter's or header's `example(s)` into its schema.
    const strays: string[] = [];
    const walk = (node: unknown, at: string): void => {
      if (Array.isArray(node)) return node.forEach((item, i) => walk(item, `${at}/${i}`));
      if (typeof node !== 'object' || node === null) return;
      const record = node as Schema;
      if ('$ref' in record) {
        const target = String(record.$ref);
        if (!/^#\/components\/[a-zA-Z]+\/[^/]+$/.test(target) || referenced(target) === undefined)
          strays.push(`${at}: $ref ${target}`);
        const siblings = Object.keys(record).filter((key) => key !== '$ref');
        if (siblings.length > 0) strays.push(`${at}: $ref beside ${siblings.join(', ')}`);
      }
      for (const keyword of ['$id', '$anchor', '$dynamicRef', '$dynamicAnchor', '$recursiveRef', 'allOf'])
        if (keyword in record) strays.push(`${at}: ${keyword}`);
      if (/\/(parameters\/[^/]+|headers\/[^/]+)$/.test(at))
        for (const keyword of ['example', 'examples'])
          if (keyword in record) strays.push(`${at}: ${keyword} on a parameter or header`);
      for (const [key, value] of Object.entries(record)) walk(value, `${at}/${key}`);
    };
    walk(document, '#');
    expect(strays).toEqual([]);
    // The walk saw references at all.
    expect(JSON.stringify(document)).toContain('"$ref":"#/components/schemas/');
  });
});
