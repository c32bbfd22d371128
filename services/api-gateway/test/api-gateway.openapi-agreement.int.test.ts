import Ajv2020, { type ErrorObject } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import type { ErrorCode } from '@gateway/contracts';
import type { OpenApiDocument } from '../src/http/openapi';
import { ADMIN_TOKEN, startHarness, type Harness } from './support/harness';
import { concretePath, resolveIn } from './support/openapi';
import { objectsOf, type Resolve } from './support/schema-samples';

type Schema = Record<string, any>;

/** What the gateway answers when its own validation refuses a request (before any command is sent). */
const VALIDATION_CODES: ErrorCode[] = [
  'MISSING_FIELDS',
  'INVALID_FIELDS',
  'INVALID_AMOUNT',
  'UNSUPPORTED_PAYMENT_METHOD',
];
const RUNS = 60;

function isContentOf(mediaType: string, text: string): boolean {
  if (mediaType !== 'application/json') return true;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The gateway and its published document agree on every input: bodies and query strings drawn near the edges of the
 * document's own schemas are refused by the gateway exactly when Ajv, reading the document, refuses them; a missing
 * required field is MISSING_FIELDS, and every refusal's code is one the document lists for that route. A route whose
 * validation drifted from what the document says (a field, an enum value, a bound, a requirement) fails here.
 */
describe('api gateway: the OpenAPI document states what the gateway accepts', () => {
  let h: Harness;
  let apiKey: string;
  let document: OpenApiDocument;
  let resolve: Resolve;
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  // Query strings are text: the gateway converts them, so Ajv does too.
  const ajvForQueries = new Ajv2020({ allErrors: true, strict: false, coerceTypes: true });

  beforeAll(async () => {
    h = await startHarness('gw-openapi');
    apiKey = (await h.newBusiness()).api_key;
    document = (await h.http.get('/openapi.json')).body as OpenApiDocument;
    for (const instance of [ajv, ajvForQueries]) {
      addFormats(instance);
      // JSON Schema leaves `contentMediaType` an annotation; the document uses it to say a text must be JSON.
      instance.removeKeyword('contentMediaType');
      instance.addKeyword({ keyword: 'contentMediaType', type: 'string', validate: isContentOf });
      instance.addSchema(document, 'openapi.json');
    }
    resolve = (schema) => resolveIn(document, schema);
  });

  afterAll(async () => {
    await h?.close();
  });

  /** Every documented operation as `[METHOD path, method, path, operation]`. */
  const operations = () =>
    Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        method,
        path,
        operation: operation as Schema,
      })),
    );

  const credentials = (operation: Schema): Record<string, string> => {
    const scheme = Object.keys((operation.security as Schema[])[0] ?? {})[0];
    if (scheme === 'apiKey') return { 'x-api-key': apiKey };
    if (scheme === 'adminToken') return { authorization: `Bearer ${ADMIN_TOKEN}` };
    return {};
  };

  const documented422 = (operation: Schema): ErrorCode[] => {
    const schema = operation.responses['422']?.content['application/json'].schema as Schema | undefined;
    return ((schema?.oneOf ?? (schema ? [schema] : [])) as Schema[]).map(
      (ref) => resolve(ref).properties.error.properties.code.const as ErrorCode,
    );
  };

  /** The gateway's verdict must be the document's; answers whether it was a refusal. */
  const expectAgreement = (
    what: string,
    errors: ErrorObject[] | null | undefined,
    answer: { status: number; body: Schema },
    codes: ErrorCode[],
  ): boolean => {
    const code = answer.body?.error?.code as ErrorCode | undefined;
    const refused = answer.status === 422 && code !== undefined && VALIDATION_CODES.includes(code);
    const verdict = {
      what,
      documentRefuses: Boolean(errors?.length),
      gatewayRefuses: refused,
      missingIsMissingFields: !errors?.some((e) => e.keyword === 'required') || code === 'MISSING_FIELDS',
      codeDocumented: !refused || codes.includes(code),
    };
    expect(verdict).toEqual({
      what,
      documentRefuses: refused,
      gatewayRefuses: refused,
      missingIsMissingFields: true,
      codeDocumented: true,
    });
    return refused;
  };

  /** Both verdicts must occur on every route, or the agreement would be vacuous. */
  const expectBothVerdicts = (route: string, verdicts: boolean[]) =>
    expect({ route, verdicts: [...new Set(verdicts)].sort() }).toEqual({ route, verdicts: [false, true] });

  test('every JSON body is refused by the gateway exactly when the document refuses it', async () => {
    const withBodies = operations().filter(({ operation }) => operation.requestBody);
    expect(withBodies.length).toBeGreaterThanOrEqual(12);
    for (const { method, path, operation } of withBodies) {
      const schema = operation.requestBody.content['application/json'].schema as Schema;
      const validate = ajv.compile({ $ref: `openapi.json${schema.$ref}` });
      const url = concretePath(document, path, method);
      const codes = documented422(operation);
      const verdicts: boolean[] = [];
      await fc.assert(
        fc.asyncProperty(objectsOf(schema, resolve), async (body) => {
          validate(body);
          const answer = await h.http[method as 'post'](url).set(credentials(operation)).send(body);
          verdicts.push(
            expectAgreement(`${method} ${path} ${JSON.stringify(body)}`, validate.errors, answer, codes),
          );
        }),
        { numRuns: RUNS },
      );
      expectBothVerdicts(`${method} ${path}`, verdicts);
    }
  }, 120_000);

  test('every query string is refused by the gateway exactly when the document refuses it', async () => {
    const withQueries = operations().filter(({ operation }) =>
      (operation.parameters as Schema[]).some((parameter) => parameter.in === 'query'),
    );
    expect(withQueries.length).toBeGreaterThanOrEqual(9);
    for (const { method, path, operation } of withQueries) {
      const parameters = (operation.parameters as Schema[]).filter((parameter) => parameter.in === 'query');
      const asObject = {
        type: 'object',
        properties: Object.fromEntries(parameters.map((parameter) => [parameter.name, parameter.schema])),
        required: parameters.filter((parameter) => parameter.required).map((parameter) => parameter.name),
      };
      const validate = ajvForQueries.compile(asObject);
      const url = concretePath(document, path, method);
      const codes = documented422(operation);
      const queries = objectsOf(asObject, resolve).map((query) =>
        Object.fromEntries(Object.entries(query).map(([name, value]) => [name, String(value)])),
      );
      const verdicts: boolean[] = [];
      await fc.assert(
        fc.asyncProperty(queries, async (query) => {
          validate(structuredClone(query));
          const answer = await h.http[method as 'get'](url).query(query).set(credentials(operation));
          verdicts.push(
            expectAgreement(
              `${method} ${path}?${new URLSearchParams(query)}`,
              validate.errors,
              answer,
              codes,
            ),
          );
        }),
        { numRuns: RUNS },
      );
      expectBothVerdicts(`${method} ${path}`, verdicts);
    }
  }, 120_000);
});
