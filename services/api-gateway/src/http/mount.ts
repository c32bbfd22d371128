import { Router, type ErrorRequestHandler, type RequestHandler } from 'express';
import { mountOperations, routePath, type Area, type OperationSpec } from './operation';
import type { RouteContext } from './routes/context';

/**
 * What stands in front of the routes of one or more areas (operation.ts), declared once (app.ts): every entry of those
 * areas is mounted behind it.
 */
export interface AreaStack {
  areas: Area[];
  /** The path every route of these areas is under (`/v1`); `''` for routes at the root. */
  prefix: string;
  /**
   * Run, in order, for every request under the prefix that no route mounted before them answered, a path no entry
   * has included: such a path is refused as a known one would be (UNAUTHORIZED without a key, counted by the rate
   * limit) before it is NOT_FOUND.
   */
  guards?: RequestHandler[];
  /**
   * Run in front of each entry of these areas, past the guards and before `onPost`: what an entry's own declaration
   * asks of the caller (the scope its API key needs). Only the first entry whose route matches a request runs it, the
   * one that serves it.
   */
  perOperation?: (op: OperationSpec) => RequestHandler[];
  /** Run for every POST under the prefix, past the guards (an express route, so a path it cannot decode fails first). */
  onPost?: RequestHandler[];
  /** Parses the body in front of each route that has one, for a stack whose guards do not parse every body. */
  parseBody?: RequestHandler[];
}

/**
 * A prefix whose requests share what belongs to no one area: the headers every answer under it carries (`before`),
 * and how a failure under it is answered (`after`, the error handlers). The root's `after` stands in front of every
 * other prefix, and of the not-found.
 */
export interface PathScope {
  prefix: string;
  before?: RequestHandler[];
  after?: Array<RequestHandler | ErrorRequestHandler>;
}

const isUnder = (path: string, prefix: string) => path.startsWith(`${prefix}/`);

/**
 * Each entry's own handlers, on its route ahead of everything else its stack mounts. Routes match in the table's order,
 * as the entries' own do, so the first entry whose route matches is the one that serves the request: only its run.
 */
function mountPerOperation(
  entries: OperationSpec[],
  prefix: string,
  router: Router,
  perOperation: (op: OperationSpec) => RequestHandler[],
): void {
  for (const op of entries) {
    const handlers = perOperation(op);
    if (handlers.length === 0) continue;
    const first: RequestHandler = (_req, res, next) => {
      if (res.locals.operationId !== undefined) return next('route');
      res.locals.operationId = op.operationId;
      next();
    };
    router[op.method](routePath(op, prefix), first, ...handlers);
  }
}

/**
 * Mounts the table: each entry under its area's stack, on the router of the deepest prefix its path is under (a stack's
 * or a scope's: `/c/assets/{name}`, public, sits among the hosted checkout's routes, past its headers, in front of its
 * rate limit). On each prefix's router come its scope's `before`, then each stack in the order given, its guards then
 * its entries (in the table's order), then its scope's `after`; the root's routes come first, every other prefix after
 * them. An area without a stack, or an entry outside its stack's prefix, is a mistake in the table: it throws.
 */
export function mountTable(
  table: OperationSpec[],
  stacks: AreaStack[],
  scopes: PathScope[],
  context: RouteContext,
): Router {
  const stackOf = new Map<Area, AreaStack>();
  for (const stack of stacks)
    for (const area of stack.areas) {
      if (stackOf.has(area)) throw new Error(`area ${area} has two stacks`);
      stackOf.set(area, stack);
    }
  for (const op of table) {
    const stack = stackOf.get(op.area);
    if (!stack) throw new Error(`${op.operationId}: no stack mounts the ${op.area} area`);
    if (!isUnder(op.path, stack.prefix)) throw new Error(`${op.operationId} is not under ${stack.prefix}`);
  }
  const prefixes = [...new Set(['', ...stacks.map((s) => s.prefix), ...scopes.map((s) => s.prefix)])];
  const prefixOf = (path: string) =>
    prefixes.filter((prefix) => isUnder(path, prefix)).reduce((a, b) => (b.length > a.length ? b : a));

  const root = Router();
  for (const prefix of prefixes) {
    const router = prefix ? Router() : root;
    const scope = scopes.find((s) => s.prefix === prefix);
    if (scope?.before?.length) router.use(...scope.before);
    for (const stack of stacks) {
      const entries = table.filter((op) => prefixOf(op.path) === prefix && stackOf.get(op.area) === stack);
      if (stack.prefix !== prefix && entries.length === 0) continue;
      if (stack.guards?.length) router.use(...stack.guards);
      if (stack.perOperation) mountPerOperation(entries, prefix, router, stack.perOperation);
      if (stack.onPost?.length) router.post('*', ...stack.onPost);
      mountOperations(entries, context, prefix, router, { parseBody: stack.parseBody });
    }
    if (scope?.after?.length) router.use(...scope.after);
    if (prefix) root.use(prefix, router);
  }
  return root;
}
