import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import request from 'supertest';
import {
  getCheckoutPage,
  getCheckoutSessionStatus,
  getPayment,
  createPayment,
  newPublicId,
  serviceNames,
  setFeeRule,
  startCheckoutSession,
  type CheckoutPage,
} from '@gateway/contracts';
import { SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS } from '@gateway/http-errors';
import { CommandError } from '@gateway/messaging';
import type { ServiceRuntime } from '@gateway/service-runtime';
import {
  aPaymentRecord,
  aPixPaymentView,
  serviceTestBed,
  startTcpProxy,
  waitFor,
  type ServiceTestBed,
  type TcpProxy,
} from '@gateway/testkit';
import type { ApiGatewayConfig } from '../src/config';
import { startApiGateway, type RunningApiGateway } from '../src/main';
import { ADMIN_TOKEN, deleteRedisKeys, FakeServices, gatewayConfig } from './support/harness';

type Dependency = 'postgres' | 'redis' | 'rabbitmq';

/** Every route class of the gateway, each probed with a request that succeeds while everything is up. */
type Probe =
  | 'GET /v1/payments/:id'
  | 'POST /v1/payments (Idempotency-Key)'
  | 'POST /admin/v1/businesses'
  | 'PUT /admin/v1/businesses/:id/fee-rules/pix'
  | 'GET /c/:slug (page)'
  | 'POST /c/:slug/sessions'
  | 'GET /c/:slug/sessions/:id';

const RPC_TIMEOUT_MS = 1000;
/** The slowest a faulty dependency may make an answer: the RPC timeout or Redis' command timeout, plus slack. */
const ANSWER_BOUND_MS = RPC_TIMEOUT_MS + 2000;
const PROBES: Probe[] = [
  'GET /v1/payments/:id',
  'POST /v1/payments (Idempotency-Key)',
  'POST /admin/v1/businesses',
  'PUT /admin/v1/businesses/:id/fee-rules/pix',
  'GET /c/:slug (page)',
  'POST /c/:slug/sessions',
  'GET /c/:slug/sessions/:id',
];
const succeeded = (status: number) => status >= 200 && status < 300;
const COMMAND_ROUTES = PROBES.filter((probe) => probe !== 'POST /admin/v1/businesses');

describe('api gateway: a dependency down or hung is 503 SERVICE_UNAVAILABLE with Retry-After on every route', () => {
  let bed: ServiceTestBed<ServiceRuntime>;
  let gateway: RunningApiGateway;
  let config: ApiGatewayConfig;
  let fakes: FakeServices;
  let http: ReturnType<typeof request>;
  const proxies = {} as Record<Dependency, TcpProxy>;
  let merchant: { business_id: string; api_key: string };
  /** A direct connection to the server's maintenance database. */
  let serverAdmin: DataSource;
  const slug = 'caneca-azul-k3j9q2';
  /** How the fake downstream services behave: answer, never answer, or reply that they failed transiently. */
  let downstream: 'answers' | 'hangs' | 'fails transiently' = 'answers';
  const behaveAsAsked = async () => {
    if (downstream === 'fails transiently')
      throw new CommandError('SERVICE_UNAVAILABLE', 'Serviço temporariamente indisponível. Tente novamente.');
    await waitFor(() => downstream !== 'hangs', { timeoutMs: 60_000, what: 'the fault to end' });
  };

  beforeAll(async () => {
    bed = await serviceTestBed('gw-fault', async (env, cleanup) => {
      cleanup.afterStop(() => deleteRedisKeys(env.config.REDIS_URL, env.config.REDIS_PREFIX));
      const urls = {
        postgres: env.config.DATABASE_URL,
        redis: env.config.REDIS_URL,
        rabbitmq: env.config.AMQP_URL,
      };
      for (const dependency of ['postgres', 'redis', 'rabbitmq'] as const) {
        const target = new URL(urls[dependency]);
        proxies[dependency] = await startTcpProxy({ host: target.hostname, port: Number(target.port) });
        cleanup.afterStop(() => proxies[dependency].close());
      }
      config = gatewayConfig(env, {
        DATABASE_URL: proxies.postgres.urlFor(urls.postgres),
        REDIS_URL: proxies.redis.urlFor(urls.redis),
        AMQP_URL: proxies.rabbitmq.urlFor(urls.rabbitmq),
        RPC_TIMEOUT_MS,
      });
      gateway = await startApiGateway(config);
      return gateway.runtime;
    });
    const maintenance = new URL(bed.env.config.DATABASE_URL);
    maintenance.pathname = '/postgres';
    serverAdmin = await new DataSource({ type: 'postgres', url: maintenance.toString() }).initialize();
    // Every service the gateway waits for at /readyz answers on the test's own (direct) connection.
    fakes = await FakeServices.start(
      bed.client,
      serviceNames.filter((service) => service !== 'api-gateway'),
    );
    http = request(gateway.url);
    const created = await http
      .post('/admin/v1/businesses')
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({ name: 'Canecas & Cia' });
    merchant = created.body as typeof merchant;
    fakes.on(getPayment, async (query) => {
      await behaveAsAsked();
      return aPixPaymentView({ payment_id: query.payment_id, business_id: query.business_id });
    });
    fakes.on(createPayment, async (command) => {
      await behaveAsAsked();
      return aPixPaymentView({ business_id: command.business_id, amount_centavos: command.amount_centavos });
    });
    fakes.on(setFeeRule, async (command) => {
      await behaveAsAsked();
      return command;
    });
    fakes.on(getCheckoutPage, async (): Promise<CheckoutPage> => {
      await behaveAsAsked();
      return {
        slug,
        business_id: merchant.business_id,
        business_name: 'Canecas & Cia',
        product_name: 'Caneca azul',
        product_description: null,
        title: 'Caneca azul',
        price_centavos: 4990,
        cancel_url: 'https://canecas.example.com/carrinho',
      };
    });
    fakes.on(startCheckoutSession, async () => {
      await behaveAsAsked();
      return {
        session_id: newPublicId('sess'),
        status: 'initiated' as const,
        payment: aPixPaymentView({ business_id: merchant.business_id, amount_centavos: 4990 }),
      };
    });
    fakes.on(getCheckoutSessionStatus, async () => {
      await behaveAsAsked();
      return {
        status: 'initiated' as const,
        return_url: null,
        payment_id: newPublicId('pay'),
        business_id: merchant.business_id,
      };
    });
  });

  afterAll(async () => {
    downstream = 'answers';
    for (const proxy of Object.values(proxies)) await proxy.forward();
    await asServerAdmin(`ALTER DATABASE ${database()} ALLOW_CONNECTIONS true`);
    await serverAdmin.destroy();
    await bed.close();
  });

  const send = (probe: Probe) => {
    const asMerchant = (test: request.Test) => test.set('x-api-key', merchant.api_key);
    const asOperator = (test: request.Test) => test.set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    switch (probe) {
      case 'GET /v1/payments/:id':
        return asMerchant(http.get(`/v1/payments/${aPaymentRecord().payment_id}`));
      case 'POST /v1/payments (Idempotency-Key)':
        return asMerchant(http.post('/v1/payments'))
          .set('Idempotency-Key', newPublicId('idem'))
          .send({ payment_method: 'pix', amount: 1990 });
      case 'POST /admin/v1/businesses':
        return asOperator(http.post('/admin/v1/businesses')).send({ name: 'Outra Loja' });
      case 'PUT /admin/v1/businesses/:id/fee-rules/pix':
        return asOperator(http.put(`/admin/v1/businesses/${merchant.business_id}/fee-rules/pix`)).send({
          percent_bps: 150,
          fixed_centavos: 50,
        });
      case 'GET /c/:slug (page)':
        return http.get(`/c/${slug}`);
      case 'POST /c/:slug/sessions':
        return http.post(`/c/${slug}/sessions`).send({ method: 'pix' });
      case 'GET /c/:slug/sessions/:id':
        return http.get(`/c/${slug}/sessions/${newPublicId('sess')}`);
    }
  };

  /** Sends every probe at once; each answer with the time it took. */
  const sendAll = async () =>
    Promise.all(
      PROBES.map(async (probe) => {
        const started = Date.now();
        const response = await send(probe);
        return { probe, response, ms: Date.now() - started };
      }),
    );

  /** The probes in `unavailable` answer 503 SERVICE_UNAVAILABLE with Retry-After, the others as usual; all fast. */
  const expectUnavailable = async (unavailable: Probe[]) => {
    for (const { probe, response, ms } of await sendAll()) {
      const seen = { probe, status: response.status, ms };
      expect({ probe, fast: ms < ANSWER_BOUND_MS }).toEqual({ probe, fast: true });
      if (!unavailable.includes(probe)) {
        const served = { ...seen, body: response.body as unknown };
        expect({ ...served, ok: succeeded(response.status) }).toEqual({ ...served, ok: true });
        continue;
      }
      expect(seen).toEqual({ probe, status: 503, ms });
      expect(response.headers['retry-after']).toBe(String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS));
      if (probe === 'GET /c/:slug (page)') {
        expect(response.headers['content-type']).toMatch(/^text\/html/);
        expect(response.text).toContain('temporariamente indisponível');
      } else {
        expect(response.headers['content-type']).toMatch(/^application\/json/);
        expect(response.body).toEqual({
          error: { code: 'SERVICE_UNAVAILABLE', message: expect.any(String) },
        });
      }
    }
  };

  /** /readyz answers quickly, 503, and names `failing` among its failed checks (and `healthy` among the good). */
  const expectNotReady = async (failing: string[], healthy: string[]) => {
    const started = Date.now();
    const response = await http.get('/readyz');
    expect(Date.now() - started).toBeLessThan(3000);
    expect(response.status).toBe(503);
    expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
    const checks = response.body.checks as Record<string, { ok: boolean }>;
    for (const name of failing) expect({ name, ok: checks[name]?.ok }).toEqual({ name, ok: false });
    for (const name of healthy) expect({ name, ok: checks[name]?.ok }).toEqual({ name, ok: true });
  };

  /** Runs `sql` on the server's maintenance database (for what a database cannot do to itself). */
  const asServerAdmin = async (sql: string) => {
    await serverAdmin.query(sql);
  };
  const database = () => `"${bed.env.database.name}"`;

  /** Ends the fault and waits until the gateway is ready and every probe succeeds again. */
  const recover = async () => {
    downstream = 'answers';
    await asServerAdmin(`ALTER DATABASE ${database()} ALLOW_CONNECTIONS true`);
    for (const proxy of Object.values(proxies)) await proxy.forward();
    await waitFor(async () => (await http.get('/readyz')).status === 200, {
      timeoutMs: 30_000,
      intervalMs: 200,
      what: 'the gateway to be ready again',
    });
    await waitFor(async () => (await sendAll()).every(({ response }) => response.status < 300), {
      timeoutMs: 10_000,
      intervalMs: 200,
      what: 'every route to answer again',
    });
  };

  /** The merchant's key is looked up in the database again, not answered from the short Redis cache. */
  const forgetCachedKeys = async () => {
    const redis = new Redis(bed.env.config.REDIS_URL);
    try {
      const keys = await redis.keys(`${bed.env.config.REDIS_PREFIX}api-key:*`);
      if (keys.length > 0) await redis.del(...keys);
    } finally {
      await redis.quit();
    }
  };

  // Each test ends its fault, even a failing one, so the next starts healthy.
  afterEach(() => recover());

  test('with every dependency up, every probe succeeds and /readyz is ready', async () => {
    await recover();
    for (const { probe, response } of await sendAll())
      expect({ probe, status: response.status, served: succeeded(response.status) }).toEqual({
        probe,
        status: response.status,
        served: true,
      });
  });

  test('PostgreSQL refusing connections: every route that reads it is 503, /readyz names postgres', async () => {
    await forgetCachedKeys();
    await proxies.postgres.refuse();
    await expectUnavailable(PROBES.filter((probe) => probe !== 'GET /c/:slug/sessions/:id'));
    await expectNotReady(['postgres'], ['redis', 'rabbitmq']);
  });

  test('PostgreSQL closed to connections and its backends terminated (an outage as operators cause one): 503, /readyz names postgres', async () => {
    await forgetCachedKeys();
    await asServerAdmin(`ALTER DATABASE ${database()} ALLOW_CONNECTIONS false`);
    await asServerAdmin(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${bed.env.database.name}'`,
    );
    await expectUnavailable(PROBES.filter((probe) => probe !== 'GET /c/:slug/sessions/:id'));
    await expectNotReady(['postgres'], ['redis', 'rabbitmq']);
  });

  test('PostgreSQL connections cut (a restart, a terminated backend): the next requests are 503 or served, never 500', async () => {
    await forgetCachedKeys();
    proxies.postgres.drop();
    for (const { probe, response } of await sendAll()) {
      const { status } = response;
      expect({ probe, status, fine: succeeded(status) || status === 503 }).toEqual({
        probe,
        status,
        fine: true,
      });
    }
  });

  test.each([
    ['refusing connections', (proxy: TcpProxy) => proxy.refuse()],
    ['hung (accepts, never answers)', (proxy: TcpProxy) => proxy.pause()],
  ])(
    'Redis %s: every route is 503 (the rate limit cannot count), /readyz names redis',
    async (_label, fault) => {
      await fault(proxies.redis);
      await expectUnavailable(PROBES);
      await expectNotReady(['redis'], ['postgres']);
    },
  );

  test('RabbitMQ refusing connections: every route that sends a command is 503, /readyz names rabbitmq', async () => {
    await proxies.rabbitmq.refuse();
    await waitFor(async () => !bed.service.broker.connected, { what: 'the gateway to see the broker gone' });
    await expectUnavailable(COMMAND_ROUTES);
    await expectNotReady(['rabbitmq'], ['postgres', 'redis']);
  });

  test('RabbitMQ hung: commands time out as 503, /readyz answers in time and says the services cannot be reached', async () => {
    proxies.rabbitmq.pause();
    await expectUnavailable(COMMAND_ROUTES);
    await expectNotReady(['service:payment'], ['postgres', 'redis']);
  });

  test('a downstream service that does not answer: its routes are 503 after the RPC timeout', async () => {
    downstream = 'hangs';
    await expectUnavailable(COMMAND_ROUTES);
  });

  test('a downstream service that replies its failure was transient (SERVICE_UNAVAILABLE): its routes are 503', async () => {
    downstream = 'fails transiently';
    await expectUnavailable(COMMAND_ROUTES);
  });
});
