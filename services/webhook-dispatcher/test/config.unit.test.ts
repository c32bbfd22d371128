import { randomBytes } from 'node:crypto';
import { ConfigError } from '@gateway/config';
import { developmentValues, refusedVariables, without } from '@gateway/testkit';
import { loadWebhookDispatcherConfig } from '../src/config';

const production = {
  APP_ENV: 'production',
  DATABASE_URL: 'postgres://dispatcher:pw@db.internal:5432/gateway',
  AMQP_URL: 'amqps://dispatcher:pw@mq.internal:5671',
  WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
};

describe('webhook dispatcher configuration', () => {
  it('defaults to the documented values (ADR 0009) in sandbox, private targets allowed', () => {
    const config = loadWebhookDispatcherConfig({ APP_ENV: 'sandbox' });
    expect(config).toMatchObject({
      APP_ENV: 'sandbox',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: true,
      WEBHOOK_TIMEOUT_MS: 10_000,
      WEBHOOK_MAX_CONCURRENCY_PER_ENDPOINT: 4,
      DELIVERY_POLL_INTERVAL_MS: 500,
      DELIVERY_LEASE_MS: 60_000,
    });
    expect(config.WEBHOOK_RETRY_SCHEDULE).toBeUndefined();
    expect(Buffer.from(config.WEBHOOK_SECRET_KEY, 'base64')).toHaveLength(32);
    expect(config.WORKER_ID).toMatch(/:\d+$/);
  });

  it('without APP_ENV it runs as production: no development key, no private targets', () => {
    expect(refusedVariables(() => loadWebhookDispatcherConfig({}))).toEqual([
      'AMQP_URL',
      'DATABASE_URL',
      'WEBHOOK_SECRET_KEY',
    ]);
    const config = loadWebhookDispatcherConfig(without(production, 'APP_ENV'));
    expect(config.APP_ENV).toBe('production');
    expect(config.WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe(false);
  });

  it('in production, with every variable set, it loads them and no local value', () => {
    const config = loadWebhookDispatcherConfig(production);
    expect(config).toMatchObject(production);
    // WORKER_ID is this host's name: whatever it is called, it is no development default.
    expect(developmentValues(config, ['METRICS_HOST', 'WORKER_ID'])).toEqual({});
  });

  it.each(Object.keys(production).filter((name) => name !== 'APP_ENV'))(
    'in production, without %s it refuses to start, naming it',
    (name) => {
      expect(refusedVariables(() => loadWebhookDispatcherConfig(without(production, name)))).toEqual([name]);
    },
  );

  it('in production, the development secret key is refused even when set explicitly', () => {
    const developmentKey = loadWebhookDispatcherConfig({ APP_ENV: 'sandbox' }).WEBHOOK_SECRET_KEY;
    expect(
      refusedVariables(() =>
        loadWebhookDispatcherConfig({ ...production, WEBHOOK_SECRET_KEY: developmentKey }),
      ),
    ).toEqual(['WEBHOOK_SECRET_KEY']);
  });

  it.each([
    [
      'a key that is not 32 bytes',
      { WEBHOOK_SECRET_KEY: randomBytes(16).toString('base64') },
      'WEBHOOK_SECRET_KEY',
    ],
    ['a bad retry schedule', { WEBHOOK_RETRY_SCHEDULE: '1s,soon' }, 'WEBHOOK_RETRY_SCHEDULE'],
    [
      'a lease no longer than the timeout',
      { WEBHOOK_TIMEOUT_MS: '5000', DELIVERY_LEASE_MS: '5000' },
      'DELIVERY_LEASE_MS',
    ],
  ])('refuses %s, naming the variable', (_label, env, variable) => {
    let caught: unknown;
    try {
      loadWebhookDispatcherConfig({ APP_ENV: 'sandbox', ...env });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).variables).toEqual([variable]);
  });

  it('refuses a stop bound no longer than the webhook timeout (its default included), naming SHUTDOWN_TIMEOUT_MS: the attempts in flight would outlast it', () => {
    expect(
      refusedVariables(() => loadWebhookDispatcherConfig({ ...production, WEBHOOK_TIMEOUT_MS: '25000' })),
    ).toEqual(['SHUTDOWN_TIMEOUT_MS']);
    expect(
      loadWebhookDispatcherConfig({
        ...production,
        WEBHOOK_TIMEOUT_MS: '25000',
        SHUTDOWN_TIMEOUT_MS: '40000',
      }),
    ).toMatchObject({ WEBHOOK_TIMEOUT_MS: 25_000, SHUTDOWN_TIMEOUT_MS: 40_000 });
  });
});
