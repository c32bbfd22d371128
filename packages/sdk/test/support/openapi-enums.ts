/** The part of an OpenAPI 3.1 document the SDK's checks read. */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  then?: Schema;
  else?: Schema;
}

export interface Operation {
  operationId: string;
  parameters?: Array<{ name: string; in: string; schema?: Schema }>;
  requestBody?: { content?: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const COMPONENT = '#/components/schemas/';

/**
 * Every schema the /v1 operations reach (their query parameters, request bodies and 2xx answers, through $refs), by
 * where it is: `Payment.status`, `Webhook.events[]`, `CreatePaymentRequest.crypto.currency` (the branches of
 * allOf/anyOf/oneOf/then/else are the same place), `listPayments?status` (a query parameter), and inline answers under
 * their operation, `listCheckoutSessions.data[].status`.
 */
export function schemasByLocation(document: OpenApiDocument): Map<string, Schema[]> {
  const found = new Map<string, Schema[]>();
  const walked = new Set<string>();
  const pending: string[] = [];

  const visit = (schema: Schema | undefined, location: string): void => {
    if (schema === undefined) return;
    if (schema.$ref !== undefined) {
      if (!schema.$ref.startsWith(COMPONENT)) throw new Error(`unexpected $ref ${schema.$ref}`);
      pending.push(schema.$ref.slice(COMPONENT.length));
      return;
    }
    found.set(location, [...(found.get(location) ?? []), schema]);
    for (const [name, property] of Object.entries(schema.properties ?? {}))
      visit(property, `${location}.${name}`);
    visit(schema.items, `${location}[]`);
    for (const branch of [
      ...(schema.allOf ?? []),
      ...(schema.anyOf ?? []),
      ...(schema.oneOf ?? []),
      schema.then,
      schema.else,
    ])
      visit(branch, location);
  };

  for (const byMethod of Object.entries(document.paths)
    .filter(([path]) => path.startsWith('/v1/'))
    .map(([, each]) => each))
    for (const [method, operation] of Object.entries(byMethod)) {
      if (!METHODS.includes(method)) continue;
      const id = operation.operationId;
      for (const parameter of operation.parameters ?? [])
        if (parameter.in === 'query') visit(parameter.schema, `${id}?${parameter.name}`);
      visit(operation.requestBody?.content?.['application/json']?.schema, `${id}(request)`);
      for (const [status, answer] of Object.entries(operation.responses))
        if (status.startsWith('2')) visit(answer.content?.['application/json']?.schema, id);
    }
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (walked.has(name)) continue;
    walked.add(name);
    const schema = document.components.schemas[name];
    if (schema === undefined) throw new Error(`no component ${name}`);
    visit(schema, name);
  }
  return found;
}

/** The enums among them, each location's values sorted (one location's branches must agree). */
export function enumsByLocation(document: OpenApiDocument): Record<string, string[]> {
  const enums: Record<string, string[]> = {};
  for (const [location, schemas] of schemasByLocation(document)) {
    const lists = schemas
      .filter((schema) => schema.enum !== undefined)
      .map((schema) => schema.enum!.map(String).sort());
    if (lists.length === 0) continue;
    const [first, ...others] = lists;
    for (const other of others)
      if (other.join() !== first!.join())
        throw new Error(`${location}: branches with different enums, ${first} and ${other}`);
    enums[location] = first!;
  }
  return enums;
}
