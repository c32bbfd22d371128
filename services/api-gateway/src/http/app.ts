import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type Redis from 'ioredis';
import type { DataSource } from 'typeorm';
import { AppError, errorMiddleware, notFoundHandler } from '@gateway/http-errors';
import type { Broker } from '@gateway/messaging';
import type { Logger } from '@gateway/observability';
import { parseSealingKey } from '@gateway/persistence';
import type { Identity, IdentityDeps } from '../application/authenticate-api-key';
import { ApiKeyCache } from '../clients/api-key-cache';
import type { ApiGatewayConfig } from '../config';
import { CommandSender } from './commands';
import { isDependencyFailure } from './dependency-failure';
import { requireHostHeader } from './client-error';
import { identify, requireIdentity, requireScope } from './identity';
import { idempotency } from './idempotency';
import { jsonBody, refuseNulInQuery } from './input-bounds';
import type { RateLimiterRedis } from 'rate-limiter-flexible';
import { createRateLimiter, rateLimit, type Counted } from './rate-limit';
import { requestContext } from './request-context';
import { requireAdmin } from './admin-token';
import { mountTable, type AreaStack, type PathScope } from './mount';
import { buildOpenApiDocument, servedOperations } from './openapi';
import type { RouteContext } from './routes/context';
import type { PaymentCopies } from '../application/shared/payment-copies';
import { hostedCheckoutScope } from './routes/hosted-checkout';

export interface AppDependencies {
  config: ApiGatewayConfig;
  dataSource: DataSource;
  broker: Broker;
  redis: Redis;
  logger: Logger;
  /** The payment copies reads are answered from, shared with the handlers of the events that feed them. */
  paymentCopies: PaymentCopies;
}

/** How long a repeat of an in-flight idempotent request waits for the first one's answer. */
const IDEMPOTENT_WAIT_MARGIN_MS = 2000;

/**
 * The public edge: every route of the operation table (http/openapi/operations.ts), each mounted behind its area's
 * stack: /v1 API (key, rate limit, idempotency), /admin/v1 operator API, /c hosted checkout, probes, and the API's
 * OpenAPI document (/openapi.json) with its reference page (/docs).
 */
export function createApp(deps: AppDependencies): Express {
  const { config, logger } = deps;
  const identity: IdentityDeps = {
    dataSource: deps.dataSource,
    cache: new ApiKeyCache(deps.redis, config.REDIS_PREFIX, logger),
    environment: config.APP_ENV,
  };
  let document: ReturnType<RouteContext['openApiDocument']> | undefined;
  const context: RouteContext = {
    commands: new CommandSender(deps.broker, config.RPC_TIMEOUT_MS),
    broker: deps.broker,
    identity,
    config,
    dataSource: deps.dataSource,
    redis: deps.redis,
    paymentCopies: deps.paymentCopies,
    // The document of this very app (the sandbox routes only where they are mounted), built when first asked for.
    openApiDocument: () =>
      (document ??= buildOpenApiDocument({
        environment: config.APP_ENV,
        rateLimits: {
          api: config.RATE_LIMIT_PER_MINUTE,
          dashboard: config.DASHBOARD_RATE_LIMIT_PER_MINUTE,
          admin: config.ADMIN_RATE_LIMIT_PER_MINUTE,
          checkout: config.CHECKOUT_RATE_LIMIT_PER_MINUTE,
        },
      })),
  };
  const limiter = (name: string, perMinute: number) =>
    createRateLimiter(deps.redis, { keyPrefix: `${config.REDIS_PREFIX}rl:${name}`, perMinute });
  const perIp = (name: 'admin' | 'checkout', limiter: RateLimiterRedis) => (req: Request) =>
    ({ name, limiter, key: `ip:${req.ip}` }) as const;
  const apiLimiter = limiter('api', config.RATE_LIMIT_PER_MINUTE);
  const dashboardLimiter = limiter('dashboard', config.DASHBOARD_RATE_LIMIT_PER_MINUTE);
  // A key the operator API marked as the dashboard's has a budget of its own; every other key (and unauthenticated
  // callers, per IP, so guessing keys is limited too) the API's.
  const perKey = (req: Request, res: Response): Counted => {
    const identity = res.locals.identity as Identity | undefined;
    if (!identity) return { name: 'api', limiter: apiLimiter, key: `ip:${req.ip}` };
    return identity.purpose === 'dashboard'
      ? { name: 'dashboard', limiter: dashboardLimiter, key: `key:${identity.keyPrefix}` }
      : { name: 'api', limiter: apiLimiter, key: `key:${identity.keyPrefix}` };
  };

  /** What stands in front of each area's routes, and of every other path under its prefix. */
  const stacks: AreaStack[] = [
    // Probes, this reference, the hosted page's files: no key, no limit.
    { areas: ['public'], prefix: '' },
    {
      // The sandbox routes are in the table only outside production (servedOperations).
      areas: ['api', 'sandbox'],
      prefix: '/v1',
      guards: [
        identify(identity),
        rateLimit(perKey, logger),
        requireIdentity,
        // Exact paths only: an empty segment (`/v1//payments`, `/v1/payments/`) names no resource, though express's
        // routing would read it as the path without it.
        (req: Request, _res: Response, next: NextFunction) =>
          next(/\/\/|.\/$/.test(req.originalUrl.split('?')[0]!) ? new AppError('NOT_FOUND') : undefined),
        ...jsonBody(),
      ],
      perOperation: requireScope,
      onPost: [
        idempotency({
          dataSource: deps.dataSource,
          logger,
          waitLimitMs: config.RPC_TIMEOUT_MS + IDEMPOTENT_WAIT_MARGIN_MS,
          responseKey: parseSealingKey(config.IDEMPOTENCY_RESPONSE_KEY),
        }),
      ],
    },
    {
      areas: ['admin'],
      prefix: '/admin/v1',
      // Counted per IP before the token is checked, so guessing the token is limited too.
      guards: [
        rateLimit(perIp('admin', limiter('admin', config.ADMIN_RATE_LIMIT_PER_MINUTE)), logger),
        requireAdmin(config.ADMIN_TOKEN),
        ...jsonBody(),
      ],
    },
    {
      // The page and its JSON calls, counted per buyer IP.
      areas: ['checkout-page', 'checkout'],
      prefix: '/c',
      guards: [
        rateLimit(perIp('checkout', limiter('checkout', config.CHECKOUT_RATE_LIMIT_PER_MINUTE)), logger),
      ],
      parseBody: jsonBody(),
    },
  ];
  const scopes: PathScope[] = [
    // Past the root's routes (the probes and the reference answer whatever the query holds).
    { prefix: '', after: [refuseNulInQuery] },
    hostedCheckoutScope(logger),
  ];

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.TRUST_PROXY);
  app.use(requestContext(logger));
  app.use(requireHostHeader);
  // No route answers OPTIONS (no CORS: the API is called from servers, the hosted page from its own origin); without
  // this express would answer it itself, with an `Allow` list in text. Not a `'*'` route: matching one decodes the
  // whole path, so a malformed percent-encoding would fail here, before the router that owns the path answers it.
  app.use((req, _res, next) => next(req.method === 'OPTIONS' ? new AppError('NOT_FOUND') : undefined));
  app.use(mountTable(servedOperations(config.APP_ENV), stacks, scopes, context));
  app.use(notFoundHandler);
  app.use(errorMiddleware(logger, { isTransient: isDependencyFailure }));
  return app;
}
