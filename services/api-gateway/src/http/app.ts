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
import { identify, requireIdentity } from './identity';
import { idempotency } from './idempotency';
import { jsonBody, refuseNulInQuery } from './input-bounds';
import { createRateLimiter, rateLimit } from './rate-limit';
import { requestContext } from './request-context';
import { buildOpenApiDocument } from './openapi';
import { adminRoutes } from './routes/admin';
import { apiReferenceRoutes } from './routes/api-reference';
import { checkoutRoutes } from './routes/checkouts';
import type { RouteContext } from './routes/context';
import { customerRoutes } from './routes/customers';
import { healthRoutes } from './routes/health';
import { hostedCheckoutRoutes } from './routes/hosted-checkout';
import { paymentRoutes } from './routes/payments';
import { webhookRoutes } from './routes/webhooks';
import { refundRoutes } from './routes/refunds';
import { eventRoutes } from './routes/events';

export interface AppDependencies {
  config: ApiGatewayConfig;
  dataSource: DataSource;
  broker: Broker;
  redis: Redis;
  logger: Logger;
}

/** How long a repeat of an in-flight idempotent request waits for the first one's answer. */
const IDEMPOTENT_WAIT_MARGIN_MS = 2000;

/**
 * The public edge: /v1 API (key, rate limit, idempotency), /admin/v1 operator API, /c hosted checkout, probes, and the
 * API's OpenAPI document (/openapi.json) with its reference page (/docs).
 */
export function createApp(deps: AppDependencies): Express {
  const { config, logger } = deps;
  const identity: IdentityDeps = {
    dataSource: deps.dataSource,
    cache: new ApiKeyCache(deps.redis, config.REDIS_PREFIX, logger),
    environment: config.APP_ENV,
  };
  const context: RouteContext = {
    commands: new CommandSender(deps.broker, config.RPC_TIMEOUT_MS),
    broker: deps.broker,
    identity,
    config,
  };
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.TRUST_PROXY);
  app.use(requestContext(logger));
  app.use(requireHostHeader);
  // No route answers OPTIONS (no CORS: the API is called from servers, the hosted page from its own origin); without
  // this express would answer it itself, with an `Allow` list in text. Not a `'*'` route: matching one decodes the
  // whole path, so a malformed percent-encoding would fail here, before the router that owns the path answers it.
  app.use((req, _res, next) => next(req.method === 'OPTIONS' ? new AppError('NOT_FOUND') : undefined));
  app.use(healthRoutes(deps));
  // The document of this very app (the sandbox routes only where they are mounted), public and not limited.
  const document = buildOpenApiDocument({
    environment: config.APP_ENV,
    rateLimits: {
      api: config.RATE_LIMIT_PER_MINUTE,
      admin: config.ADMIN_RATE_LIMIT_PER_MINUTE,
      checkout: config.CHECKOUT_RATE_LIMIT_PER_MINUTE,
    },
  });
  app.use(apiReferenceRoutes(document, { tryItOut: config.APP_ENV !== 'production' }));
  app.use(refuseNulInQuery);

  // Unauthenticated callers are counted per IP, so guessing keys is limited too.
  const apiLimiter = createRateLimiter(deps.redis, {
    keyPrefix: `${config.REDIS_PREFIX}rl:api`,
    perMinute: config.RATE_LIMIT_PER_MINUTE,
  });
  const apiBucket = (req: Request, res: Response): string => {
    const identity = res.locals.identity as Identity | undefined;
    return identity ? `key:${identity.keyPrefix}` : `ip:${req.ip}`;
  };
  const api = express.Router();
  api.use(
    identify(identity),
    rateLimit('api', apiLimiter, apiBucket, logger),
    requireIdentity,
    // Exact paths only: an empty segment (`/v1//payments`, `/v1/payments/`) names no resource, though express's
    // routing would read it as the path without it.
    (req: Request, _res: Response, next: NextFunction) =>
      next(/\/\/|.\/$/.test(req.originalUrl.split('?')[0]!) ? new AppError('NOT_FOUND') : undefined),
    jsonBody(),
  );
  api.post(
    '*',
    idempotency({
      dataSource: deps.dataSource,
      logger,
      waitLimitMs: config.RPC_TIMEOUT_MS + IDEMPOTENT_WAIT_MARGIN_MS,
      responseKey: parseSealingKey(config.IDEMPOTENCY_RESPONSE_KEY),
    }),
  );
  api.use(
    paymentRoutes(context),
    checkoutRoutes(context),
    customerRoutes(context),
    webhookRoutes(context),
    refundRoutes(context),
    eventRoutes(context),
    notFoundHandler,
  );
  app.use('/v1', api);

  // Counted per IP before the token is checked, so guessing the token is limited too.
  const adminLimiter = createRateLimiter(deps.redis, {
    keyPrefix: `${config.REDIS_PREFIX}rl:admin`,
    perMinute: config.ADMIN_RATE_LIMIT_PER_MINUTE,
  });
  app.use(
    '/admin/v1',
    rateLimit('admin', adminLimiter, (req) => `ip:${req.ip}`, logger),
    adminRoutes(context),
  );

  const checkoutLimiter = createRateLimiter(deps.redis, {
    keyPrefix: `${config.REDIS_PREFIX}rl:checkout`,
    perMinute: config.CHECKOUT_RATE_LIMIT_PER_MINUTE,
  });
  app.use(
    '/c',
    hostedCheckoutRoutes(
      context,
      rateLimit('checkout', checkoutLimiter, (req) => `ip:${req.ip}`, logger),
      logger,
    ),
  );

  app.use(notFoundHandler);
  app.use(errorMiddleware(logger, { isTransient: isDependencyFailure }));
  return app;
}
