/**
 * `pnpm --filter @gateway/bench bench:validation`: what validating a request costs on the gateway's hot path, with the
 * schemas the gateway uses today (joi, checked as `validateBody` and `validateQuery` check them) against the
 * alternatives weighed in docs/adr/0018-operation-table.md:
 * - TypeBox with its compiled checker, the same rules declared again in TypeBox (conversion, defaults and the
 *   dropping of unknown fields done by its `Value` functions, as the gateway needs them);
 * - Ajv compiling the JSON Schema the OpenAPI document already derives from the joi declaration.
 * Prints operations per second for a create-payment body (valid PIX, valid crypto, invalid) and a list query.
 *
 *   pnpm --filter @gateway/bench bench:validation              about 1 second per figure
 *   pnpm --filter @gateway/bench bench:validation --ms 300     shorter
 */
import { parseArgs } from 'node:util';
import { FormatRegistry, Type, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';
import Ajv, { type ValidateFunction } from 'ajv';
import type Joi from 'joi';
import { createPaymentBody, paymentsPage } from '@gateway/api-gateway/src/http/routes/payments';
import { SchemaComponents } from '@gateway/api-gateway/src/http/openapi/json-schema';

const { values } = parseArgs({ options: { ms: { type: 'string', default: '1000' } } });
const budgetMs = Number(values.ms);

const pixBody = { payment_method: 'pix', amount: 2500, currency: 'BRL', metadata: '{"order_id":"1001"}' };
const cryptoBody = {
  payment_method: 'crypto',
  amount: 2500,
  crypto: { currency: 'USDC', network: 'solana' },
};
const invalidBody = { payment_method: 'pix', amount: 12.5, metadata: 'not json' };
const listQuery = { limit: '20', status: 'paid', created_gte: '2026-11-01T00:00:00Z' };

// --- joi, as validation.ts calls it --------------------------------------------------------------------------------
const joiBody = (schema: Joi.ObjectSchema) => (body: unknown) =>
  !schema.validate(body, { abortEarly: false, convert: false, allowUnknown: true, stripUnknown: true }).error;
const joiQuery = (schema: Joi.ObjectSchema) => (query: unknown) =>
  !schema.validate(query, { abortEarly: false, convert: true, stripUnknown: true }).error;

// --- TypeBox: the same rules declared in TypeBox -------------------------------------------------------------------
const idShape = (prefix: string) => Type.String({ pattern: `^${prefix}_[A-Za-z0-9_-]{24,64}$` });
const amount = Type.Integer({ minimum: 100, maximum: 999_999_999_999 });
const jsonText = Type.String({ minLength: 1, maxLength: 8192 });
const tokenNames = ['usdc', 'usdt', 'eurc', 'USDC', 'USDT', 'EURC'];
const common = {
  amount,
  currency: Type.Optional(Type.Union([Type.Literal('BRL'), Type.Literal('brl')])),
  metadata: Type.Optional(Type.Union([jsonText, Type.Null()])),
  customer_id: Type.Optional(Type.Union([idShape('cust'), Type.Null()])),
};
const typeboxBodySchema = Type.Union([
  Type.Object({ payment_method: Type.Literal('pix'), ...common, crypto: Type.Optional(Type.Unknown()) }),
  Type.Object({
    payment_method: Type.Literal('crypto'),
    ...common,
    crypto: Type.Object({
      currency: Type.Union(tokenNames.map((name) => Type.Literal(name))),
      network: Type.Literal('solana'),
    }),
  }),
]);
const typeboxQuerySchema = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 10 }),
  starting_after: Type.Optional(idShape('pay')),
  status: Type.Optional(
    Type.Union(
      ['pending', 'processing', 'paid', 'failed', 'expired', 'cancelled'].map((s) => Type.Literal(s)),
    ),
  ),
  method: Type.Optional(Type.Union([Type.Literal('pix'), Type.Literal('crypto')])),
  created_gte: Type.Optional(Type.String({ format: 'date-time' })),
  created_lt: Type.Optional(Type.String({ format: 'date-time' })),
});
// TypeBox checks no format it was not taught; this one is what joi's isoDate accepts, roughly.
FormatRegistry.Set('date-time', (value) => !Number.isNaN(Date.parse(value)));
const compiled = <T extends TSchema>(schema: T) => TypeCompiler.Compile(schema);
const typeboxBodyCheck = compiled(typeboxBodySchema);
const typeboxQueryCheck = compiled(typeboxQuerySchema);
const typeboxBody = (body: unknown) => {
  // The metadata must parse (a custom rule in joi): checked after the shape, as joi's custom rule runs.
  // A refusal names its fields, as the gateway's answer does: the errors are listed.
  if (!typeboxBodyCheck.Check(body)) return [...typeboxBodyCheck.Errors(body)].length === 0;
  const metadata = (body as { metadata?: string | null }).metadata;
  if (typeof metadata === 'string') {
    try {
      JSON.parse(metadata);
    } catch {
      return false;
    }
  }
  Value.Clean(typeboxBodySchema, structuredClone(body));
  return true;
};
const typeboxQuery = (query: unknown) => {
  const value = Value.Default(
    typeboxQuerySchema,
    Value.Convert(typeboxQuerySchema, { ...(query as object) }),
  );
  return typeboxQueryCheck.Check(value) || [...typeboxQueryCheck.Errors(value)].length === 0;
};

// --- Ajv on the JSON Schema derived from joi (what the document publishes) -----------------------------------------
const components = new SchemaComponents();
const ajvOf = (schema: Joi.Schema, options: { coerce: boolean }): ValidateFunction => {
  const ajv = new Ajv({
    allErrors: true,
    strict: false,
    coerceTypes: options.coerce,
    useDefaults: true,
    removeAdditional: false,
    validateFormats: false,
  });
  const converted = components.of(schema);
  return ajv.compile({ ...converted, $defs: components.schemas });
};
const ajvBodyCheck = ajvOf(createPaymentBody, { coerce: false });
const ajvQueryCheck = ajvOf(paymentsPage, { coerce: true });
const ajvBody = (body: unknown) => ajvBodyCheck(structuredClone(body));
const ajvQuery = (query: unknown) => ajvQueryCheck({ ...(query as object) });

/** Calls per second of `run(input)` over about `budgetMs`, after a warm-up. */
function opsPerSecond(run: (input: unknown) => boolean, input: unknown, expected: boolean): number {
  if (run(input) !== expected) throw new Error(`a validator disagrees on ${JSON.stringify(input)}`);
  for (let i = 0; i < 2000; i++) run(input);
  let calls = 0;
  const start = process.hrtime.bigint();
  const end = start + BigInt(budgetMs) * 1_000_000n;
  let now = start;
  while (now < end) {
    for (let i = 0; i < 500; i++) run(input);
    calls += 500;
    now = process.hrtime.bigint();
  }
  return Math.round(calls / (Number(now - start) / 1e9));
}

// Each validator refuses what the gateway refuses in these inputs (a sanity check of the alternatives).
for (const [name, { body, query }] of Object.entries({
  typebox: { body: typeboxBody, query: typeboxQuery },
  ajv: { body: ajvBody, query: ajvQuery },
})) {
  if (query({ limit: '0' }) || query({ status: 'nope' }) || !query({}) || body({ amount: 2500 }))
    throw new Error(`${name} accepts what the gateway refuses`);
}

const cases: Array<{ name: string; input: unknown; valid: boolean; kind: 'body' | 'query' }> = [
  { name: 'create payment, PIX', input: pixBody, valid: true, kind: 'body' },
  { name: 'create payment, crypto', input: cryptoBody, valid: true, kind: 'body' },
  { name: 'create payment, invalid', input: invalidBody, valid: false, kind: 'body' },
  { name: 'list payments query', input: listQuery, valid: true, kind: 'query' },
];
const validators = {
  joi: { body: joiBody(createPaymentBody), query: joiQuery(paymentsPage) },
  typebox: { body: typeboxBody, query: typeboxQuery },
  'ajv (from joi)': { body: ajvBody, query: ajvQuery },
};

const rows: string[] = [
  '| input | joi ops/s | TypeBox ops/s | Ajv (from joi) ops/s | joi µs/call |',
  '|---|---:|---:|---:|---:|',
];
for (const { name, input, valid, kind } of cases) {
  const figures = Object.values(validators).map(({ [kind]: run }) => opsPerSecond(run, input, valid));
  const joiMicros = (1e6 / figures[0]!).toFixed(1);
  rows.push(`| ${name} | ${figures.map((n) => n.toLocaleString('en-US')).join(' | ')} | ${joiMicros} |`);
}
console.log(`node ${process.version}, ${budgetMs} ms per figure\n`);
console.log(rows.join('\n'));
