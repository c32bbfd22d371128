import type Joi from 'joi';
import parse from 'joi-to-json';

/** A JSON Schema (OpenAPI 3.1 dialect, i.e. draft 2020-12) as plain data. */
export type JsonSchema = Record<string, unknown>;

type Description = Record<string, unknown> & {
  type?: string;
  flags?: Record<string, unknown>;
  allow?: unknown[];
  rules?: Array<{ name: string; args?: Record<string, unknown> }>;
};

/** `payment.confirmed` or `missing_fields` -> `PaymentConfirmed`, `MissingFields`: component names. */
export const pascalCase = (text: string): string =>
  text
    .split(/[._]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Where a joi description nests other descriptions (object keys, array items, conditions, alternatives). */
function childDescriptions(description: Description): Description[] {
  const children: unknown[] = [];
  if (isObject(description.keys)) children.push(...Object.values(description.keys));
  for (const list of ['items', 'ordered']) {
    if (Array.isArray(description[list])) children.push(...(description[list] as unknown[]));
  }
  for (const list of ['whens', 'matches']) {
    for (const condition of (description[list] as unknown[] | undefined) ?? []) {
      if (!isObject(condition)) continue;
      children.push(condition.schema, condition.is, condition.then, condition.otherwise);
      for (const branch of (condition.switch as unknown[] | undefined) ?? []) {
        if (isObject(branch)) children.push(branch.is, branch.then, branch.otherwise);
      }
    }
  }
  return children.filter(isObject) as Description[];
}

/**
 * Two joi string rules joi-to-json does not carry over, written into the description as rules it does: joi refuses
 * an empty string unless `allow('')` (minLength 1), and `uri({ scheme })` admits only those schemes (a pattern).
 */
function completeStringRules(description: Description): void {
  for (const child of childDescriptions(description)) completeStringRules(child);
  if (description.type !== 'string' || description.flags?.only) return;
  const rules = (description.rules ??= []);
  const hasMinimum = rules.some((rule) => rule.name === 'min' || rule.name === 'length');
  if (!hasMinimum && !description.allow?.includes('')) rules.push({ name: 'min', args: { limit: 1 } });
  for (const rule of rules) {
    const scheme = (rule.args?.options as { scheme?: unknown } | undefined)?.scheme;
    if (rule.name !== 'uri' || scheme === undefined) continue;
    const schemes = ([] as unknown[]).concat(scheme).map(String);
    rules.push({ name: 'pattern', args: { regex: `/^(?:${schemes.join('|')}):/` } });
  }
}

const ANY_TYPE = ['array', 'boolean', 'number', 'object', 'string', 'null'];
/** Keywords whose values are data, not schemas. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'example', 'required']);

/**
 * What the document publishes: no `additionalProperties: false` (the gateway ignores unknown request fields, and
 * additive response fields must not break clients), and joi's `any` as the empty schema instead of a list of types.
 */
function publishable(schema: JsonSchema): JsonSchema {
  const result: JsonSchema = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === 'additionalProperties' && value === false) continue;
    if (keyword === 'type' && Array.isArray(value) && ANY_TYPE.every((type) => value.includes(type)))
      continue;
    if (keyword === 'properties' && isObject(value) && Object.keys(value).length === 0) continue;
    if (DATA_KEYWORDS.has(keyword)) result[keyword] = value;
    else if (Array.isArray(value))
      result[keyword] = value.map((item) => (isObject(item) ? publishable(item) : item));
    else if (isObject(value)) result[keyword] = publishable(value);
    else result[keyword] = value;
  }
  return result;
}

/**
 * Named JSON Schemas (`components.schemas`) and the conversion that fills them: joi-to-json converts joi's own
 * `describe()`, so the document states exactly the rules the gateway validates with. A joi schema named with `.id()`
 * becomes a component, referenced wherever it appears.
 */
export class SchemaComponents {
  readonly schemas: Record<string, JsonSchema> = {};

  of(schema: Joi.Schema): JsonSchema {
    const description = schema.describe() as Description;
    completeStringRules(description);
    const named: Record<string, JsonSchema> = {};
    const converted = parse(
      { describe: () => description } as unknown as Parameters<typeof parse>[0],
      'open-api-3.1',
      named,
    ) as JsonSchema;
    // The parser also returns the named schemas under `schemas`; they are kept in `this.schemas` instead.
    delete converted.schemas;
    for (const [name, namedSchema] of Object.entries(named)) this.add(name, publishable(namedSchema));
    return publishable(converted);
  }

  /** Two different schemas under one name would make one of them a lie. */
  add(name: string, schema: JsonSchema): void {
    const existing = this.schemas[name];
    if (existing && JSON.stringify(existing) !== JSON.stringify(schema))
      throw new Error(`two different schemas are named ${name}`);
    this.schemas[name] = schema;
  }
}
