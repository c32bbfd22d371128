import { generatedRoutes } from './generated/routes';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface Route {
  method: HttpMethod;
  /** OpenAPI-style template: `/v1/payments/{payment_id}`. */
  path: string;
}

/**
 * Every public route the client calls, one entry per operation of the gateway's table (generated from it, see
 * generated/routes.ts): the client builds its requests from this table.
 */
export const routes = generatedRoutes satisfies Record<string, Route>;

/** The route's path with its parameters filled in, each encoded as one path segment. */
export function routePath(route: Route, params: Readonly<Record<string, string>>): string {
  return route.path.replace(/\{(\w+)\}/g, (_match, name: string) => {
    const value = params[name];
    if (value === undefined || value === '') throw new TypeError(`${name} is required`);
    return encodeURIComponent(value);
  });
}
