import type { Request, RequestHandler, Response, Router } from 'express';
import type Joi from 'joi';
import type {
  ApiKeyScope,
  CommandDefinition,
  ErrorCode,
  HttpOperationTypes,
  PayloadOf,
  ResultOf,
} from '@gateway/contracts';
import { AppError, asyncHandler } from '@gateway/http-errors';
import { identityOf } from './identity';
import type { RouteContext } from './routes/context';
import { pathId, validateBody, validateQuery, type FieldCodes, type PathIdPrefix } from './validation';

/**
 * Who may call a route and what stands in front of it: each area's stack is declared once (app.ts), and every entry
 * is mounted behind its area's (http/mount.ts):
 * - `api`: /v1, API key, rate limit per key, JSON body parsing, `Idempotency-Key` on POST;
 * - `sandbox`: the same, mounted only outside production;
 * - `admin`: /admin/v1, operator token, rate limit per IP, JSON body parsing;
 * - `checkout`: the hosted checkout's JSON endpoints, public, rate limit per buyer IP;
 * - `checkout-page`: the hosted page itself (HTML), limited like `checkout`;
 * - `public`: no key and no limit (probes, this reference, the hosted page's static files).
 */
export type Area = 'api' | 'sandbox' | 'admin' | 'checkout' | 'checkout-page' | 'public';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A documented answer that is not the contract's error body (a success, an HTML page, a readiness report). */
export interface Answer {
  status: number;
  description: string;
  /** The JSON body (application/json); absent for other media types. */
  schema?: Joi.Schema;
  /** Non-JSON media types the answer may have. */
  mediaTypes?: string[];
}

/**
 * A body's named examples: /docs (Swagger UI) prefills "Try it out" with the first and offers the others in a list,
 * so each is a request the sandbox accepts as it is, apart from the ids of the caller's own resources
 * (api-reference.e2e.test.ts sends every one). An id a body requires is `exampleId(prefix)`: of the right shape and
 * plainly a stand-in, so a request sent without replacing it is NOT_FOUND, never a validation error. Optional ids
 * are left out, and path ids get no example: the field stays empty until the caller pastes a real one.
 */
export type RequestExamples = Record<string, { summary: string; value: Record<string, unknown> }>;

/** The stand-in for an id a request body requires (`prod_REPLACE_WITH_YOUR_OWN_ID`). */
export const exampleId = (prefix: string): string => `${prefix}_REPLACE_WITH_YOUR_OWN_ID`;

/** One example of a body. */
export const only = (summary: string, value: Record<string, unknown>): RequestExamples => ({
  example: { summary, value },
});

/** A JSON answer. */
export const json = (status: number, description: string, schema: Joi.Schema): Answer => ({
  status,
  description,
  schema,
});

/**
 * The checks a request goes through before its handler, in the order an entry states (params, query, body by
 * default): all path parameters, every query schema in the entry's order, the body; or one of the entry's query
 * schemas alone; or a check of the entry's own (a path value with its own error code).
 */
export type Check = 'params' | 'query' | 'body' | Joi.ObjectSchema | ((req: Request) => void);

/** An operation of the table that takes or answers JSON: its types are generated from its schemas. */
export type JsonOperationId = keyof HttpOperationTypes;
/** The body of an operation, as its schema checked it (`undefined` without a body). */
export type BodyOf<Id extends JsonOperationId> = HttpOperationTypes[Id] extends { body: infer Body }
  ? Body
  : undefined;
/** The query of an operation, as its schemas checked it (a parameter with a default is always there). */
export type QueryOf<Id extends JsonOperationId> = HttpOperationTypes[Id] extends { query: infer Query }
  ? Query
  : Record<string, never>;
/** The body of an operation's success answer. */
export type AnswerOf<Id extends JsonOperationId> = HttpOperationTypes[Id]['answer'];

/** Any command an entry may list. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyCommand = CommandDefinition<any, any>;

/**
 * What a handler receives: its checked path parameters, query and body, the caller, and a sender of the commands its
 * entry lists (no other: the refusals the document gives the route are those commands').
 */
export interface OperationInput<
  Params extends string,
  Query,
  Body,
  Commands extends AnyCommand = AnyCommand,
> {
  /** The path parameters, checked when the entry's checks include them (raw path values otherwise). */
  params: Record<Params, string>;
  query: Query;
  body: Body;
  /** The caller's business (`api` and `sandbox` routes; an operator or a buyer has none). */
  readonly businessId: string;
  req: Request;
  res: Response;
  /** Sends a command for this request (its correlation and idempotency ids), a refusal being its public error. */
  send<D extends Commands>(definition: D, payload: PayloadOf<D>, timeoutMs?: number): Promise<ResultOf<D>>;
}

/**
 * How the gateway CLI takes one of its command's fields where it is not the plain way (packages/cli builds the command
 * from the facts `pnpm generate:sdk` writes; docs/sdk-and-cli.md#commands-from-the-operation-table): a path id, a query or
 * body field, or a dotted path into a body object (`crypto.currency`).
 */
export interface CliField {
  /** The flag's name when not the field's in kebab case (`customer` for `customer_id`). */
  flag?: string;
  /** What the usage calls the value (`<centavos>`), or the argument. */
  value?: string;
  /** The help text of the flag or argument. */
  description?: string;
  /** The flag's default. */
  default?: string;
  /** The values the flag offers, when not every value the field takes. */
  choices?: readonly string[];
  /** A body field taken as an argument after the path ids, not a flag; `words`: every word left, joined by spaces. */
  argument?: 'one' | 'words';
  /** Sent only when the body's fields have these values (`{ payment_method: 'crypto' }`). */
  when?: Record<string, string>;
  /** A value always sent (where `when` holds), with no flag. */
  fixed?: string;
  /** Neither a flag nor sent. */
  skip?: true;
}

/** The gateway CLI's command for an operation (`gateway payments list`), built from its entry. */
export interface CliCommand {
  /** Its group and name: `payments list`, `admin set-fee`. */
  command: string;
  /** What its help says it does; the summary by default. */
  description?: string;
  /** Text its help shows after the options. */
  help?: string;
  /** Its arguments may begin with a dash (an API key's prefix): an unknown option is taken as an argument. */
  dashArguments?: true;
  /** The order of the flags when not the document's (those it does not name come after, in the document's). */
  order?: string[];
  /** The fields taken otherwise than as `--<field-in-kebab-case> <field>`. */
  fields?: Record<string, CliField>;
  /** An operator command whose route honours `Idempotency-Key` takes `--idempotency-key` (merchant POSTs all do). */
  idempotencyKey?: true;
}

/**
 * The SDK's method for an operation of the public API (`gateway.payments.create(...)`): `pnpm generate:sdk` writes the
 * SDK's namespaces from these fields (packages/sdk/src/generated/methods.ts;
 * docs/sdk-and-cli.md#methods-from-the-operation-table), and the CLI's command for the operation calls it. The kind of
 * call is derived from the entry: a body makes it `(…ids, body, options?)` (the body optional when the document
 * requires none of its fields), a page of `has_more` a list whose next page starts after the last item's first id
 * field (`id` or `…_id`), anything else `(…ids, options?)`.
 */
export interface SdkMethod {
  /** Its namespace and name, in the order the table gives: `payments.create`. */
  method: `${string}.${string}`;
  /** The JSDoc the method shows. */
  description?: string;
  /** Whether the body may be left out, where the SDK says otherwise than the document. */
  optionalBody?: boolean;
  /** What a retried call answers when its first attempt did the work and its answer was lost (a DELETE's 404). */
  goneAnswer?: Record<string, unknown>;
  /** Written in the SDK itself (packages/sdk/src/client.ts), not generated: a list with a cursor of its own. */
  handWritten?: true;
}

/**
 * A group of operations in the OpenAPI document (/docs shows each with its description): declared by its route family
 * next to its entries, listed once in openapi/operations.ts.
 */
export interface Tag {
  name: string;
  description: string;
}

/** One operation as the document describes it, with the handler that serves it when it is mounted from the table. */
export interface OperationSpec {
  method: HttpMethod;
  /** The full path, OpenAPI style (`/v1/payments/{payment_id}`). */
  path: string;
  operationId: string;
  tag: string;
  area: Area;
  /**
   * The scope an API key needs for it (`api` and `sandbox` operations, every one of them; docs/adr/0022-api-key-scopes.md):
   * a key limited to other scopes is FORBIDDEN before anything is checked or sent.
   */
  scope?: ApiKeyScope;
  summary: string;
  description?: string;
  /**
   * The route's own body schema, the component name it is published under, what "Try it out" prefills, and the
   * fields whose failures have their own code (validation.ts).
   */
  body?: { name: string; schema: Joi.ObjectSchema; examples: RequestExamples; codes?: FieldCodes };
  /** The route's own query schemas (a page, a filter). */
  query?: Joi.ObjectSchema[];
  /** Path parameters: an id prefix (a malformed id is NOT_FOUND) or the value's schema. */
  params?: Record<string, PathIdPrefix | Joi.Schema>;
  /** The order of the checks (params, then query, then body unless stated): the first failing one answers. */
  checks?: Check[];
  /** The commands the route sends: their refusals are its errors too. */
  commands?: Array<Pick<CommandDefinition<unknown, unknown>, 'name' | 'refusals'>>;
  /** Codes the route raises itself, beyond its area's, its body's, its path ids' and its commands'. */
  errors?: ErrorCode[];
  /** The first is the success answer: its status is the one a handler's result is sent with. */
  answers: Answer[];
  /** The CLI's command for it, if it has one. */
  cli?: CliCommand;
  /** The SDK's method for it: every `api` and `sandbox` operation has one, no other. */
  sdk?: SdkMethod;
  /** Serves the operation once its input is checked; what it returns is the answer's body. */
  handle?(input: OperationInput<string, unknown, unknown>, context: RouteContext): Promise<unknown>;
  /**
   * Answers the request itself, for a route that does not answer JSON from checked input (a page, a file, a probe,
   * the document): no checks run before it, and it sends its own answer (or fails with the error to answer).
   */
  serve?(req: Request, res: Response, context: RouteContext): unknown;
}

/**
 * An entry as declared: the handler typed by the entry's own path parameters and by the types generated from its
 * schemas (`HttpOperationTypes`, written by `pnpm generate:sdk` from the JSON Schema the document publishes of the
 * entry's body, query and answer schemas): its body, its query and what it returns.
 */
export type OperationEntry<
  Id extends JsonOperationId,
  Params extends string,
  Commands extends readonly AnyCommand[],
> = Omit<OperationSpec, 'operationId' | 'params' | 'commands' | 'handle'> & {
  operationId: Id;
  params?: Record<Params, PathIdPrefix | Joi.Schema>;
  /** The commands the route sends: their refusals are its errors too, and its handler can send no other. */
  commands?: Commands;
  /** Its commands go through `input.send` alone: the context it gets has no command channel of its own. */
  handle(
    input: OperationInput<Params, QueryOf<Id>, BodyOf<Id>, Commands[number]>,
    context: Omit<RouteContext, 'commands'>,
  ): Promise<AnswerOf<Id>>;
};

/** Declares an operation once: what the document states of it and how it is served, typed by its schemas. */
export function defineOperation<
  const Id extends JsonOperationId,
  Params extends string = never,
  const Commands extends readonly AnyCommand[] = [],
>(entry: OperationEntry<Id, Params, Commands>): OperationSpec {
  return entry as unknown as OperationSpec;
}

/** The page a list route asks its service for: the checked `limit`, and the cursor (null for the first page). */
export const pageOf = (query: { limit: number; starting_after?: string }) => ({
  limit: query.limit,
  starting_after: query.starting_after ?? null,
});

/** The express path of an entry on the router mounted at `prefix` (`/payments/:payment_id`). */
export const routePath = (op: OperationSpec, prefix: string): string =>
  op.path.slice(prefix.length).replace(/\{(\w+)\}/g, ':$1');

const DEFAULT_CHECKS: Check[] = ['params', 'query', 'body'];

function checkParams(op: OperationSpec, req: Request): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [name, rule] of Object.entries(op.params ?? {})) {
    const value = req.params[name];
    if (typeof rule === 'string') params[name] = pathId(rule, value);
    else if (rule.validate(value).error) throw new AppError('NOT_FOUND');
    else params[name] = value!;
  }
  return params;
}

/**
 * Mounts entries on a router (paths relative to `prefix`, the path the router is mounted at): each request is checked
 * as its entry states, handled, and answered with the entry's success status; an entry that serves its requests
 * itself (`serve`) gets them as they come. http/mount.ts decides which router and what stands in front of it.
 */
export function mountOperations(
  operations: OperationSpec[],
  context: RouteContext,
  prefix: string,
  router: Router,
  options: { parseBody?: RequestHandler | RequestHandler[] } = {},
): void {
  for (const op of operations) {
    const { handle, serve } = op;
    if (handle && serve) throw new Error(`${op.operationId} has both a handler and a serve function`);
    if (!op.path.startsWith(`${prefix}/`)) throw new Error(`${op.operationId} is not under ${prefix}`);
    const path = routePath(op, prefix);
    // Only a route with a body parses one (the others ignore what is sent).
    const parseBody = op.body && options.parseBody ? [options.parseBody].flat() : [];
    if (serve) {
      router[op.method](
        path,
        ...parseBody,
        asyncHandler(async (req, res) => serve(req, res, context)),
      );
      continue;
    }
    if (!handle) throw new Error(`${op.operationId} has no handler`);
    router[op.method](
      path,
      ...parseBody,
      asyncHandler(async (req, res) => {
        const input = {
          params: req.params as Record<string, string>,
          query: {},
          body: undefined as unknown,
          get businessId() {
            return identityOf(res).businessId;
          },
          req,
          res,
          send: <P, R>(definition: CommandDefinition<P, R>, payload: P, timeoutMs?: number) =>
            context.commands.send(definition, payload, res, timeoutMs),
        };
        for (const check of op.checks ?? DEFAULT_CHECKS) {
          if (check === 'params') input.params = checkParams(op, req);
          else if (check === 'query')
            for (const schema of op.query ?? []) Object.assign(input.query, validateQuery(schema, req.query));
          else if (check === 'body') {
            if (op.body) input.body = validateBody(op.body.schema, req.body, op.body.codes);
          } else if (typeof check === 'function') check(req);
          else Object.assign(input.query, validateQuery(check, req.query));
        }
        const result = await handle(input, context);
        res.status(op.answers[0]!.status).json(result);
      }),
    );
  }
}
