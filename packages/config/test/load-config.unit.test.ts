import {
  ConfigError,
  Joi,
  commonEnv,
  loadConfig,
  pixMerchantCity,
  sandboxDefault,
  sandboxOnly,
  secret,
  variableNames,
} from '../src';

const schema = Joi.object({
  APP_ENV: commonEnv.APP_ENV,
  DATABASE_URL: commonEnv.DATABASE_URL,
  AMQP_URL: commonEnv.AMQP_URL,
  REDIS_URL: commonEnv.REDIS_URL,
  METRICS_HOST: commonEnv.METRICS_HOST,
  PORT: Joi.number().port().default(3000),
  ADMIN_TOKEN: secret('dev-token'),
  PUBLIC_URL: sandboxDefault(Joi.string().uri(), 'http://localhost:3000'),
  WALLET: sandboxOnly(Joi.string(), 'sandbox-wallet'),
});

const production = {
  APP_ENV: 'production',
  DATABASE_URL: 'postgres://gateway:pw@db.internal:5432/gateway',
  AMQP_URL: 'amqps://gateway:pw@mq.internal:5671',
  REDIS_URL: 'rediss://cache.internal:6380',
  ADMIN_TOKEN: 'set-by-operator',
  PUBLIC_URL: 'https://pay.example.com.br',
  WALLET: 'operator-wallet',
};

function refused(env: Record<string, string>): string[] {
  try {
    loadConfig(schema, env);
    return [];
  } catch (err) {
    return (err as ConfigError).variables.sort();
  }
}

describe('loadConfig', () => {
  test('in the sandbox, defaults work on this machine when nothing else is set', () => {
    expect(loadConfig(schema, { APP_ENV: 'sandbox' })).toEqual({
      APP_ENV: 'sandbox',
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/gateway',
      AMQP_URL: 'amqp://guest:guest@127.0.0.1:5672',
      REDIS_URL: 'redis://127.0.0.1:6379',
      METRICS_HOST: '127.0.0.1',
      PORT: 3000,
      ADMIN_TOKEN: 'dev-token',
      PUBLIC_URL: 'http://localhost:3000',
      WALLET: 'sandbox-wallet',
    });
  });

  test('every bad variable is named in one error', () => {
    const attempt = () =>
      loadConfig(schema, { PORT: 'eighty', DATABASE_URL: 'mysql://x', APP_ENV: 'staging' });
    expect(attempt).toThrow(ConfigError);
    expect(refused({ PORT: 'eighty', DATABASE_URL: 'mysql://x', APP_ENV: 'staging' })).toEqual(
      expect.arrayContaining(['APP_ENV', 'DATABASE_URL', 'PORT']),
    );
  });

  test('a refusal names the variable but never repeats its value, which may be a secret', () => {
    const keyed = Joi.object({
      SIGNER_KEY: Joi.string().pattern(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/, 'base58 secret key'),
    });
    let message = '';
    try {
      loadConfig(keyed, { SIGNER_KEY: '[12,34,s3cr3t-key-bytes]' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/SIGNER_KEY/);
    expect(message).toMatch(/base58 secret key/);
    expect(message).not.toMatch(/s3cr3t/);
  });

  test('without APP_ENV it is production: nothing falls back to a development default', () => {
    expect(refused({})).toEqual([
      'ADMIN_TOKEN',
      'AMQP_URL',
      'DATABASE_URL',
      'PUBLIC_URL',
      'REDIS_URL',
      'WALLET',
    ]);
  });

  test('in production, with every variable set, it loads exactly what was set', () => {
    expect(loadConfig(schema, production)).toEqual({ ...production, METRICS_HOST: '127.0.0.1', PORT: 3000 });
  });

  test.each(Object.keys(production).filter((name) => name !== 'APP_ENV'))(
    'in production, without %s it refuses to start, naming that variable alone',
    (name) => {
      const env: Record<string, string> = { ...production };
      delete env[name];
      expect(refused(env)).toEqual([name]);
    },
  );

  test('in production, a public development value is refused even when set explicitly', () => {
    expect(refused({ ...production, ADMIN_TOKEN: 'dev-token', WALLET: 'sandbox-wallet' })).toEqual([
      'ADMIN_TOKEN',
      'WALLET',
    ]);
    expect(() => loadConfig(schema, { ...production, ADMIN_TOKEN: 'dev-token' })).toThrow(
      /"ADMIN_TOKEN" is the public sandbox value/,
    );
  });

  test('metrics bind to loopback unless another interface is configured', () => {
    expect(loadConfig(schema, { ...production, METRICS_HOST: '0.0.0.0' }).METRICS_HOST).toBe('0.0.0.0');
    expect(refused({ ...production, METRICS_HOST: 'not a host' })).toEqual(['METRICS_HOST']);
  });

  test('consumer prefetch and database pool default to the measured sizes, and a size of zero is refused', () => {
    const sizes = Joi.object({
      BROKER_PREFETCH: commonEnv.BROKER_PREFETCH,
      DATABASE_POOL_SIZE: commonEnv.DATABASE_POOL_SIZE,
    });
    expect(loadConfig(sizes, {})).toEqual({ BROKER_PREFETCH: 16, DATABASE_POOL_SIZE: 10 });
    expect(loadConfig(sizes, { BROKER_PREFETCH: '64', DATABASE_POOL_SIZE: '20' })).toEqual({
      BROKER_PREFETCH: 64,
      DATABASE_POOL_SIZE: 20,
    });
    expect(() => loadConfig(sizes, { BROKER_PREFETCH: '0', DATABASE_POOL_SIZE: '0' })).toThrow(ConfigError);
  });

  test('lists the variables a schema reads', () => {
    expect(variableNames(schema)).toEqual([
      'APP_ENV',
      'DATABASE_URL',
      'AMQP_URL',
      'REDIS_URL',
      'METRICS_HOST',
      'PORT',
      'ADMIN_TOKEN',
      'PUBLIC_URL',
      'WALLET',
    ]);
  });
});

describe('a Pix merchant city (read by the PIX adapter and the PSP simulator alike)', () => {
  const city = Joi.object({ MERCHANT_CITY: pixMerchantCity });

  test.each([
    ['São Paulo', 'Sao Paulo'],
    ['BRASILIA', 'BRASILIA'],
    ['Ribeirão Preto', 'Ribeirao Preto'],
  ])('%s is read as the BR Code carries it: %s', (given, read) => {
    expect(loadConfig(city, { MERCHANT_CITY: given }).MERCHANT_CITY).toBe(read);
  });

  test.each(['東京', 'São José dos Campos', '', 'Rio\u0000'])(
    '%j is refused, naming MERCHANT_CITY',
    (given) => {
      expect(() => loadConfig(city, { MERCHANT_CITY: given })).toThrow(/MERCHANT_CITY/);
    },
  );
});
