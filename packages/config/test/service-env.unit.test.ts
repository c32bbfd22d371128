import {
  brokerUrls,
  type ConfigError,
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
  Joi,
  loadConfig,
  metricsEnv,
  serviceEnv,
  serviceSchema,
  variableNames,
  type ServiceEnv,
} from '../src';

const shared = serviceSchema({});

function refused(env: Record<string, string>): string[] {
  try {
    loadConfig(shared, env);
    return [];
  } catch (err) {
    return (err as ConfigError).variables.sort();
  }
}

describe('the block every service reads', () => {
  test('in the sandbox it works on this machine with nothing set', () => {
    expect(loadConfig(shared, { APP_ENV: 'sandbox' })).toMatchObject({
      APP_ENV: 'sandbox',
      LOG_LEVEL: 'info',
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/gateway',
      AMQP_URL: 'amqp://guest:guest@127.0.0.1:5672',
      AMQP_PREFIX: '',
      BROKER_PREFETCH: 16,
      DATABASE_POOL_SIZE: 10,
      SHUTDOWN_TIMEOUT_MS: DEFAULT_SHUTDOWN_TIMEOUT_MS,
      METRICS_HOST: '127.0.0.1',
    });
  });

  test('without APP_ENV it is production, which needs the database and the broker and nothing else', () => {
    expect(refused({})).toEqual(['AMQP_URL', 'DATABASE_URL']);
    const production = {
      DATABASE_URL: 'postgres://gateway:pw@db.internal:5432/gateway',
      AMQP_URL: 'amqps://gateway:pw@mq.internal:5671',
    };
    expect(loadConfig(shared, production)).toMatchObject({ APP_ENV: 'production', ...production });
  });

  test("a cluster's nodes go in AMQP_URLS instead of AMQP_URL, read as one list either way", () => {
    const database = { DATABASE_URL: 'postgres://gateway:pw@db.internal:5432/gateway' };
    const cluster = loadConfig(shared, {
      ...database,
      AMQP_URLS: 'amqps://gateway:pw@mq-0.internal:5671, amqps://gateway:pw@mq-1.internal:5671',
    });
    expect(cluster.AMQP_URL).toBeUndefined();
    expect(brokerUrls(cluster)).toEqual([
      'amqps://gateway:pw@mq-0.internal:5671',
      'amqps://gateway:pw@mq-1.internal:5671',
    ]);
    const single = loadConfig(shared, { ...database, AMQP_URL: 'amqps://gateway:pw@mq.internal:5671' });
    expect(brokerUrls(single)).toEqual(['amqps://gateway:pw@mq.internal:5671']);
    expect(brokerUrls(loadConfig(shared, { APP_ENV: 'sandbox' }))).toEqual([
      'amqp://guest:guest@127.0.0.1:5672',
    ]);
  });

  test.each([
    [
      'a list with an address that is not amqp',
      { AMQP_URLS: 'amqp://a:pw@mq-0:5672,http://mq-1' },
      'AMQP_URLS',
    ],
    ['the same node twice', { AMQP_URLS: 'amqp://a:pw@mq-0:5672,amqp://a:pw@mq-0:5672' }, 'AMQP_URLS'],
    ['an empty list', { AMQP_URLS: ' , ' }, 'AMQP_URLS'],
    ['both variables', { AMQP_URLS: 'amqp://a:pw@mq-0:5672', AMQP_URL: 'amqp://a:pw@mq-0:5672' }, 'AMQP_URL'],
  ])('refuses %s, naming the variable and hiding the value', (_case, env, variable) => {
    const all = { APP_ENV: 'sandbox', ...env };
    expect(refused(all)).toEqual([variable]);
    expect(() => loadConfig(shared, all)).toThrow(/AMQP_URL/);
    expect(() => loadConfig(shared, all)).not.toThrow(/pw@/);
  });

  test('names the shared variables, tracing (OTEL_*) and the stop bound among them', () => {
    expect(variableNames(Joi.object(serviceEnv))).toEqual(
      expect.arrayContaining([
        'APP_ENV',
        'LOG_LEVEL',
        'DATABASE_URL',
        'AMQP_URL',
        'AMQP_URLS',
        'AMQP_PREFIX',
        'BROKER_RETRY_MAX_MS',
        'BROKER_PREFETCH',
        'DATABASE_POOL_SIZE',
        'SHUTDOWN_TIMEOUT_MS',
        'OTEL_EXPORTER_OTLP_ENDPOINT',
      ]),
    );
    expect(variableNames(Joi.object(metricsEnv))).toEqual(['METRICS_PORT', 'METRICS_HOST']);
  });

  test("a service's schema lists the shared block, then the metrics listener, then its own variables", () => {
    type OwnConfig = ServiceEnv & { PAYMENT_RPC_TIMEOUT_MS: number };
    const own = { PAYMENT_RPC_TIMEOUT_MS: Joi.number().default(4000) };
    expect(variableNames(serviceSchema<OwnConfig>(own))).toEqual([
      ...variableNames(Joi.object(serviceEnv)),
      'METRICS_PORT',
      'METRICS_HOST',
      'PAYMENT_RPC_TIMEOUT_MS',
    ]);
    expect(variableNames(serviceSchema<OwnConfig>(own, { metricsListener: false }))).toEqual([
      ...variableNames(Joi.object(serviceEnv)),
      'PAYMENT_RPC_TIMEOUT_MS',
    ]);
  });
});
