import { randomBytes } from 'node:crypto';
import { ConfigError } from '@gateway/config';
import { loadWebhookDispatcherConfig } from '../src/config';

describe('webhook dispatcher configuration', () => {
  it('defaults to the decisions.md values in sandbox, private targets allowed', () => {
    const config = loadWebhookDispatcherConfig({});
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

  it('requires the secret key in production and refuses private targets there by default', () => {
    expect(() => loadWebhookDispatcherConfig({ APP_ENV: 'production' })).toThrow(ConfigError);
    const key = randomBytes(32).toString('base64');
    const config = loadWebhookDispatcherConfig({ APP_ENV: 'production', WEBHOOK_SECRET_KEY: key });
    expect(config.WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe(false);
    expect(config.WEBHOOK_SECRET_KEY).toBe(key);
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
      loadWebhookDispatcherConfig(env);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).variables).toEqual([variable]);
  });
});
