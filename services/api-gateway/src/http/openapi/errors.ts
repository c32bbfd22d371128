import { errorCodes, type ErrorCode } from '@gateway/contracts';
import { errorCatalog } from '@gateway/http-errors';
import { pascalCase, type JsonSchema, type SchemaComponents } from './json-schema';

/** `MISSING_FIELDS` -> `MissingFieldsError`: the component of that code's error body. */
export const errorSchemaName = (code: ErrorCode): string => `${pascalCase(code.toLowerCase())}Error`;

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** One component per public code: the contract's error body with that code, its default message as the example. */
export function addErrorSchemas(components: SchemaComponents): void {
  for (const code of errorCodes) {
    const { status, message } = errorCatalog[code];
    components.add(errorSchemaName(code), {
      type: 'object',
      description: `HTTP ${status}.`,
      required: ['error'],
      properties: {
        error: {
          type: 'object',
          required: ['code', 'message'],
          properties: {
            code: { const: code },
            message: { type: 'string', description: 'Human-readable, in Portuguese.' },
          },
        },
      },
      examples: [{ error: { code, message } }],
    });
  }
}

/** The codes of one operation grouped by their HTTP status (errorCatalog), in the catalog's order. */
export function codesByStatus(codes: Iterable<ErrorCode>): Map<number, ErrorCode[]> {
  const wanted = new Set(codes);
  const grouped = new Map<number, ErrorCode[]>();
  for (const code of errorCodes) {
    if (!wanted.has(code)) continue;
    const { status } = errorCatalog[code];
    grouped.set(status, [...(grouped.get(status) ?? []), code]);
  }
  return new Map([...grouped].sort(([a], [b]) => a - b));
}

/** The body of an error answer that may carry any of `codes` (all of one status). */
export function errorBodySchema(codes: ErrorCode[]): JsonSchema {
  const refs = codes.map((code) => ref(errorSchemaName(code)));
  return refs.length === 1 ? refs[0]! : { oneOf: refs };
}
