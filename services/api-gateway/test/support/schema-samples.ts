import fc from 'fast-check';

type Schema = Record<string, any>;

/** Resolves `#/components/schemas/...` references against the document. */
export type Resolve = (schema: Schema) => Schema;

const BOGUS = 'not-a-documented-value';
const ABSENT = Symbol('absent');
/** Printable ASCII: the gateway's NUL and UTF-8 checks are tested elsewhere; here only the schemas speak. */
const text = (minLength: number, maxLength: number) =>
  fc.string({
    unit: fc.constantFrom(...'abcdefghij klmnopqrstuvwxyz-0123456789'.split('')),
    minLength,
    maxLength,
  });

const typesOf = (schema: Schema): string[] =>
  schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];

interface Candidates {
  /** Values meant to satisfy the schema. */
  fitting: Array<fc.Arbitrary<unknown>>;
  /** Values at or past its edges: out of bounds, off the enum or pattern, too long, of another type. */
  edges: Array<fc.Arbitrary<unknown>>;
}

function candidatesOf(schema: Schema, resolve: Resolve): Candidates {
  const resolved = resolve(schema);
  const types = typesOf(resolved);
  const fitting: Array<fc.Arbitrary<unknown>> = [];
  const edges: Array<fc.Arbitrary<unknown>> = [];
  if (types.includes('null')) fitting.push(fc.constant(null));
  if (resolved.enum || 'const' in resolved) {
    const values = (resolved.enum ?? [resolved.const]) as unknown[];
    fitting.push(fc.constantFrom(...values));
    edges.push(fc.constantFrom(BOGUS, String(values[0]).toUpperCase(), 7));
    return { fitting, edges };
  }
  if (types.includes('integer') || types.includes('number')) {
    const min = (resolved.minimum as number | undefined) ?? -1000;
    const max = Math.min((resolved.maximum as number | undefined) ?? 1_000_000, Number.MAX_SAFE_INTEGER);
    fitting.push(
      fc.integer({ min: Math.max(min, -1e15), max: Math.min(max, 1e15) }),
      fc.constantFrom(min, max),
    );
    edges.push(fc.constantFrom(min - 1, max + 1, 150.5, '150'));
  }
  if (types.includes('string')) {
    const minLength = (resolved.minLength as number | undefined) ?? 0;
    const maxLength = (resolved.maxLength as number | undefined) ?? 60;
    if (resolved.contentMediaType === 'application/json') {
      fitting.push(fc.json({ maxDepth: 2 }).filter((json) => json.length <= maxLength));
      edges.push(fc.constant('{not json'));
    } else if (resolved.format === 'date-time') {
      fitting.push(
        fc
          .date({ min: new Date('2020-01-01'), max: new Date('2030-01-01') })
          .map((date) => date.toISOString()),
      );
      edges.push(fc.constant('yesterday'));
    } else if (resolved.format === 'uri') {
      fitting.push(fc.constantFrom('https://hooks.example.com/a', 'http://shop.example.com/b'));
      edges.push(fc.constantFrom('ftp://files.example.com/c', 'not a uri'));
    } else if (resolved.pattern) {
      fitting.push(fc.stringMatching(new RegExp(resolved.pattern as string)));
      edges.push(fc.constant(BOGUS));
    } else {
      fitting.push(text(minLength, Math.min(maxLength, 60)));
    }
    edges.push(fc.constantFrom('', 'x'.repeat(maxLength + 1), 42));
  }
  if (types.includes('boolean')) {
    fitting.push(fc.boolean());
    edges.push(fc.constant('true'));
  }
  if (types.includes('array')) {
    const items = valuesOf(resolved.items ?? {}, resolve);
    fitting.push(fc.array(items, { minLength: resolved.minItems ?? 0, maxLength: 3 }));
    edges.push(fc.constantFrom([], 'a string'));
  }
  if (types.includes('object') || resolved.properties) {
    fitting.push(objectsOf(resolved, resolve));
    edges.push(fc.constant('x'));
  }
  if (fitting.length === 0) fitting.push(fc.jsonValue({ maxDepth: 1 }));
  return { fitting, edges };
}

/**
 * Values for a schema, mostly fitting it and sometimes at or past its edges (bounds, enums, patterns, lengths, types).
 * Which ones the document accepts is Ajv's to say, not this generator's.
 */
export function valuesOf(schema: Schema, resolve: Resolve): fc.Arbitrary<unknown> {
  const { fitting, edges } = candidatesOf(schema, resolve);
  return fc.oneof(
    { arbitrary: fc.oneof(...fitting), weight: 5 },
    ...(edges.length > 0 ? [{ arbitrary: fc.oneof(...edges), weight: 1 }] : []),
  );
}

/** Every property an object schema speaks of, its conditional ones (`then`) included. */
function propertiesOf(schema: Schema, resolve: Resolve): Map<string, Schema[]> {
  const found = new Map<string, Schema[]>();
  for (const part of [schema, schema.then].filter(Boolean).map(resolve)) {
    for (const [name, property] of Object.entries((part.properties ?? {}) as Record<string, Schema>)) {
      found.set(name, [...(found.get(name) ?? []), property]);
    }
  }
  return found;
}

/** Objects whose properties are each absent (rarely, if required) or one of `valuesOf` their schemas. */
export function objectsOf(schema: Schema, resolve: Resolve): fc.Arbitrary<Record<string, unknown>> {
  const resolved = resolve(schema);
  const required = new Set<string>([
    ...(resolved.required ?? []),
    ...(resolve(resolved.then ?? {}).required ?? []),
  ]);
  const entries = [...propertiesOf(resolved, resolve)].map(([name, schemas]) => {
    const value = fc.oneof(...schemas.map((property) => valuesOf(property, resolve)));
    const absentWeight = required.has(name) ? 1 : 5;
    return [
      name,
      fc.oneof({ arbitrary: value, weight: 9 }, { arbitrary: fc.constant(ABSENT), weight: absentWeight }),
    ];
  });
  return fc
    .record(Object.fromEntries(entries) as Record<string, fc.Arbitrary<unknown>>)
    .map((draft) => Object.fromEntries(Object.entries(draft).filter(([, value]) => value !== ABSENT)));
}
