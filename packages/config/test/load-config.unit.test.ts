import { ConfigError, Joi, commonEnv, loadConfig, secret } from '../src';

const schema = Joi.object({
  APP_ENV: commonEnv.APP_ENV,
  DATABASE_URL: commonEnv.DATABASE_URL,
  PORT: Joi.number().port().default(3000),
  ADMIN_TOKEN: secret('dev-token'),
});

describe('loadConfig', () => {
  test('defaults work on this machine when nothing is set', () => {
    expect(loadConfig(schema, {})).toEqual({
      APP_ENV: 'sandbox',
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/gateway',
      PORT: 3000,
      ADMIN_TOKEN: 'dev-token',
    });
  });

  test('every bad variable is named in one error', () => {
    const attempt = () =>
      loadConfig(schema, { PORT: 'eighty', DATABASE_URL: 'mysql://x', APP_ENV: 'staging' });
    expect(attempt).toThrow(ConfigError);
    try {
      attempt();
    } catch (err) {
      expect((err as ConfigError).variables.sort()).toEqual(['APP_ENV', 'DATABASE_URL', 'PORT']);
      expect((err as ConfigError).message).toContain('PORT');
    }
  });

  test('in production a secret has no default and must be set', () => {
    expect(() => loadConfig(schema, { APP_ENV: 'production' })).toThrow(/ADMIN_TOKEN/);
    expect(loadConfig(schema, { APP_ENV: 'production', ADMIN_TOKEN: 'set-by-operator' }).ADMIN_TOKEN).toBe(
      'set-by-operator',
    );
  });
});
