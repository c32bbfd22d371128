import express, { type Request, type Response } from 'express';
import type Redis from 'ioredis';
import type { DataSource } from 'typeorm';
import { metricsRegistry, type Logger } from '@gateway/observability';
import type { DashboardConfig } from '../config';
import type { BusinessApi } from '../clients/business-api';
import type { GatewayAdmin } from '../clients/gateway-admin';
import type { SecondFactorDeps } from '../application/verify-second-factor';
import type { Mailer } from '../clients/mailer';
import { LoginAttemptStore, SecondFactorAttemptStore, SessionStore } from '../persistence';
import { requireMember } from './member';
import { requireOperator } from './operator';
import { sendPage } from './respond';
import { csrfTokenMatches, sameOrigin, Sessions } from './session';
import { stylesheet } from './stylesheet';
import { authRoutes } from './routes/auth';
import { keyRoutes } from './routes/keys';
import { businessRoutes } from './routes/business';
import { checkoutRoutes } from './routes/checkouts';
import { customerRoutes } from './routes/customers';
import { paymentRoutes } from './routes/payments';
import { payoutRoutes } from './routes/payouts';
import { subscriptionRoutes } from './routes/subscriptions';
import { securityRoutes, signInCodeRoutes } from './routes/second-factor';
import { sectionRoutes } from './routes/sections';
import { accountRoutes } from './routes/account';
import { teamRoutes } from './routes/team';
import { operatorInvitationRoutes, operatorRoutes } from './routes/operator';
import { webhookRoutes } from './routes/webhooks';
import { errorPage } from './views/other';
import { dashboardErrorHandler } from './error-handler';

export interface DashboardAppDeps {
  config: DashboardConfig;
  dataSource: DataSource;
  redis: Redis;
  admin: GatewayAdmin;
  api: BusinessApi;
  /** DASHBOARD_SEAL_KEY, parsed: the second factors' secrets are sealed under it. */
  sealKey: Buffer;
  mailer: Mailer;
  logger: Logger;
}

/**
 * No script but our own (there is none yet), no inline style, no framing, forms posted only here: a text that got past
 * the escaping still could not run.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** The web app: sessions, CSRF, the pages; every action through the gateway's APIs. */
export function createDashboardApp(deps: DashboardAppDeps): express.Express {
  const { config } = deps;
  const sessions = new Sessions(
    new SessionStore(deps.redis, config.REDIS_PREFIX, config.SESSION_IDLE_SECONDS),
    config.APP_ENV === 'production',
    config.SESSION_IDLE_SECONDS,
  );
  const members = { dataSource: deps.dataSource, api: deps.api, sessions };
  const mail = { dataSource: deps.dataSource, mailer: deps.mailer, publicUrl: config.DASHBOARD_PUBLIC_URL };
  const attempts = new LoginAttemptStore(deps.redis, config.REDIS_PREFIX);
  // Codes are counted and locked as passwords are, with the same settings.
  const secondFactor: SecondFactorDeps = {
    dataSource: deps.dataSource,
    sealKey: deps.sealKey,
    failures: new SecondFactorAttemptStore(deps.redis, config.REDIS_PREFIX),
    attempts,
    attemptsPerMinute: config.LOGIN_ATTEMPTS_PER_MINUTE,
    maxFailures: config.LOGIN_MAX_FAILURES,
    lockSeconds: config.LOGIN_LOCK_SECONDS,
  };
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.TRUST_PROXY);
  app.use((_req, res, next) => {
    res.set({
      'content-security-policy': CONTENT_SECURITY_POLICY,
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'same-origin',
      ...(config.APP_ENV === 'production' ? { 'strict-transport-security': 'max-age=31536000' } : {}),
    });
    next();
  });

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const redisReady = deps.redis.status === 'ready';
    const databaseReady = await deps.dataSource.query('SELECT 1').then(
      () => true,
      () => false,
    );
    res.status(redisReady && databaseReady ? 200 : 503).json({
      status: redisReady && databaseReady ? 'ready' : 'not_ready',
      checks: { redis: redisReady ? 'ok' : 'down', database: databaseReady ? 'ok' : 'down' },
    });
  });
  // For the cluster's scraper only: the ingress routes no /metrics (docs/dashboard.md).
  app.get('/metrics', async (_req, res) => {
    res.type(metricsRegistry.contentType).send(await metricsRegistry.metrics());
  });
  app.get('/static/app.css', (_req, res) => {
    res.set('cache-control', 'public, max-age=3600').type('css').send(stylesheet);
  });

  app.use(express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 50 }));
  app.use(sessions.load);
  // Every state-changing request carries its session's CSRF token and, when the browser says, this site's origin.
  app.use((req, res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD') return next();
    if (sameOrigin(req) && csrfTokenMatches(sessions.current(res), (req.body as { _csrf?: unknown })._csrf))
      return next();
    sendPage(
      res,
      403,
      errorPage(undefined, 'Formulário expirado', 'Recarregue a página e envie o formulário de novo.'),
    );
  });

  app.use(
    authRoutes({
      sessions,
      admin: deps.admin,
      members,
      signUpOpen: config.APP_ENV === 'sandbox',
      mail,
      logger: deps.logger,
      signUp: { dataSource: deps.dataSource, admin: deps.admin, api: deps.api },
      signIn: {
        dataSource: deps.dataSource,
        attempts,
        maxFailures: config.LOGIN_MAX_FAILURES,
        lockSeconds: config.LOGIN_LOCK_SECONDS,
        attemptsPerMinute: config.LOGIN_ATTEMPTS_PER_MINUTE,
      },
    }),
  );
  app.use(signInCodeRoutes({ sessions, secondFactor }));
  app.use(
    accountRoutes({
      sessions,
      mail,
      attempts,
      attemptsPerMinute: config.LOGIN_ATTEMPTS_PER_MINUTE,
      maxFailures: config.LOGIN_MAX_FAILURES,
      lockSeconds: config.LOGIN_LOCK_SECONDS,
      logger: deps.logger,
    }),
  );
  app.get('/', (_req, res) => {
    const data = sessions.current(res)?.data;
    res.redirect(303, !data?.userId ? '/entrar' : data.operator ? '/operador' : '/pagamentos');
  });
  app.get('/dashboard', (_req, res) => res.redirect(303, '/'));

  // The operator console: its invitation link first (no session yet), then every page behind requireOperator.
  app.use(
    operatorInvitationRoutes({
      sessions,
      dataSource: deps.dataSource,
      attempts,
      attemptsPerMinute: config.LOGIN_ATTEMPTS_PER_MINUTE,
    }),
  );
  app.use(
    '/operador',
    requireOperator({ dataSource: deps.dataSource, sessions }),
    operatorRoutes({ dataSource: deps.dataSource, admin: deps.admin, mail, secondFactor }),
  );

  const signedIn = express.Router();
  signedIn.use(requireMember(members));
  signedIn.use(
    paymentRoutes(deps.dataSource),
    subscriptionRoutes(deps.dataSource),
    keyRoutes(deps.admin, deps.dataSource),
    sectionRoutes(),
    teamRoutes(deps.dataSource, { mail, attempts, attemptsPerMinute: config.LOGIN_ATTEMPTS_PER_MINUTE }),
    securityRoutes(secondFactor),
    payoutRoutes({ admin: deps.admin, dataSource: deps.dataSource, secondFactor }),
    webhookRoutes(deps.dataSource),
    customerRoutes(deps.dataSource),
    checkoutRoutes(deps.dataSource),
    businessRoutes(deps.dataSource),
  );
  app.use(signedIn);

  app.use((_req: Request, res: Response) => {
    sendPage(res, 404, errorPage(undefined, 'Página não encontrada', 'Não há nada neste endereço.'));
  });
  app.use(dashboardErrorHandler(deps.logger));
  return app;
}
