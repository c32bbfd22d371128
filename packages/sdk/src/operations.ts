import type { OperationTypes } from './generated/types';
import { PagedList } from './pagination';
import { routes } from './routes';
import type { Transport } from './transport';
import type { Checkout, DeliveryPage, Event, Page, RequestOptions, WebhookDelivery } from './types';

/** An operation of the public API by its operation id (the generated route table and types share them). */
export type OperationId = keyof typeof routes & keyof OperationTypes;

/**
 * Where the SDK names an answer more precisely than the document's schema: an event is a union by its type, a created
 * or listed checkout has no sessions, a delivery's status is one of the dispatcher's states.
 */
interface RefinedAnswers {
  getEvent: Event;
  listEvents: Page<Event>;
  createCheckout: Checkout;
  listCheckouts: Page<Checkout>;
  listWebhookDeliveries: DeliveryPage;
  retryWebhookDelivery: Pick<WebhookDelivery, 'delivery_id' | 'status'>;
}

export type Answer<Op extends OperationId> = Op extends keyof RefinedAnswers
  ? RefinedAnswers[Op]
  : OperationTypes[Op]['answer'];
type Body<Op extends OperationId> = OperationTypes[Op] extends { body: infer B } ? B : never;
type Query<Op extends OperationId> = OperationTypes[Op] extends { query: infer Q } ? Q : never;

/** One string per parameter of a path template: `/v1/a/{a_id}/b/{b_id}` → [string, string]. */
type PathIds<Path extends string> = Path extends `${string}{${string}}${infer Rest}`
  ? [string, ...PathIds<Rest>]
  : [];
/** The ids of the operation's route, in the path's order. */
type Ids<Op extends OperationId> = PathIds<(typeof routes)[Op]['path']>;

/** The item of a list operation's page. */
type Item<Op extends OperationId> = Answer<Op> extends { data: (infer T)[] } ? T : never;

/**
 * The client's methods derived from the route table: each takes its route's path ids in order, then its body or its
 * list's query, then the call's options.
 */
export class Operations {
  constructor(private readonly transport: Transport) {}

  /** A call with no body: `(…ids, options?)`. */
  plain<Op extends OperationId>(
    operationId: Op,
    extra: { goneAnswer?: Answer<Op> } = {},
  ): (...args: [...ids: Ids<Op>, options?: RequestOptions]) => Promise<Answer<Op>> {
    const route = routes[operationId];
    const names = paramNames(route.path);
    const count = names.length;
    return (...args) =>
      this.transport.send<Answer<Op>>({
        route,
        params: params(names, args),
        options: args[count] as RequestOptions | undefined,
        ...extra,
      });
  }

  /** A call with a body it must be given: `(…ids, body, options?)`. */
  withBody<Op extends OperationId>(
    operationId: Op,
  ): (...args: [...ids: Ids<Op>, body: Body<Op>, options?: RequestOptions]) => Promise<Answer<Op>> {
    return this.bodyCall(operationId);
  }

  /** A call whose body may be left out (every field optional): `(…ids, body = {}, options?)`. */
  withOptionalBody<Op extends OperationId>(
    operationId: Op,
  ): (...args: [...ids: Ids<Op>, body?: Body<Op>, options?: RequestOptions]) => Promise<Answer<Op>> {
    return this.bodyCall(operationId);
  }

  /**
   * A list of the common pages (`has_more`, `starting_after`): `(…ids, query = {}, options?)`, each item's id giving
   * the cursor of the next page.
   */
  list<Op extends OperationId>(
    operationId: Op,
    idOf: (item: Item<Op>) => string,
  ): (
    ...args: [...ids: Ids<Op>, query?: Query<Op>, options?: RequestOptions]
  ) => PagedList<Answer<Op>, Item<Op>> {
    const route = routes[operationId];
    const names = paramNames(route.path);
    const count = names.length;
    return (...args) => {
      const ids = params(names, args);
      const query = { ...(args[count] as Record<string, string | number | undefined> | undefined) };
      const options = args[count + 1] as RequestOptions | undefined;
      return new PagedList(async (cursor) => {
        const page = (await this.transport.send<Answer<Op>>({
          route,
          params: ids,
          query: cursor === undefined ? query : { ...query, starting_after: cursor },
          options,
        })) as Answer<Op> & Page<Item<Op>>;
        const last = page.data.at(-1);
        return { page, items: page.data, next: page.has_more && last ? idOf(last as Item<Op>) : undefined };
      });
    };
  }

  private bodyCall<Op extends OperationId>(operationId: Op) {
    const route = routes[operationId];
    const names = paramNames(route.path);
    const count = names.length;
    return (...args: unknown[]): Promise<Answer<Op>> =>
      this.transport.send<Answer<Op>>({
        route,
        params: params(names, args),
        body: args[count] ?? {},
        options: args[count + 1] as RequestOptions | undefined,
      });
  }
}

function paramNames(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string);
}

/** The path parameters by name from the call's leading arguments. */
function params(names: readonly string[], args: readonly unknown[]): Record<string, string> {
  return Object.fromEntries(names.map((name, index) => [name, args[index] as string]));
}
