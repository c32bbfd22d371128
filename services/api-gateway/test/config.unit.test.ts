import { randomBytes } from 'node:crypto';
import { developmentValues, refusedVariables, without } from '@gateway/testkit';
import { ADMIN_TOKEN_MIN_LENGTH, DEVELOPMENT_ADMIN_TOKEN, loadApiGatewayConfig } from '../src/config';

const production = {
  APP_ENV: 'production',
  DATABASE_URL: 'postgres://gateway:pw@db.internal:5432/gateway',
  AMQP_URL: 'amqps://gateway:pw@mq.internal:5671',
  REDIS_URL: 'rediss://cache.internal:6380',
  ADMIN_TOKEN: 'Zq3vN8wKp2LmX7rT5yB1cD9fG4hJ6sA0',
  PUBLIC_BASE_URL: 'https://pay.example.com.br',
  IDEMPOTENCY_RESPONSE_KEY: randomBytes(32).toString('base64'),
};

describe('api-gateway config', () => {
  test('in the sandbox it runs on this machine with the development admin token', () => {
    expect(loadApiGatewayConfig({ APP_ENV: 'sandbox', PORT: '8080' })).toMatchObject({
      APP_ENV: 'sandbox',
      PORT: 8080,
      ADMIN_TOKEN: DEVELOPMENT_ADMIN_TOKEN,
      PUBLIC_BASE_URL: 'http://localhost:8080',
    });
  });

  test('without APP_ENV it runs as production and names every variable it needs', () => {
    expect(refusedVariables(() => loadApiGatewayConfig({}))).toEqual(
      Object.keys(production)
        .filter((name) => name !== 'APP_ENV')
        .sort(),
    );
  });

  test('in production, with every variable set, it loads them and no local value', () => {
    const config = loadApiGatewayConfig(production);
    expect(config).toMatchObject(production);
    expect(developmentValues(config)).toEqual({});
  });

  test.each(Object.keys(production).filter((name) => name !== 'APP_ENV'))(
    'in production, without %s it refuses to start, naming it',
    (name) => {
      expect(refusedVariables(() => loadApiGatewayConfig(without(production, name)))).toEqual([name]);
    },
  );

  test('the development admin token satisfies the minimum length, and production refuses it', () => {
    expect(DEVELOPMENT_ADMIN_TOKEN.length).toBeGreaterThanOrEqual(ADMIN_TOKEN_MIN_LENGTH);
    expect(
      refusedVariables(() => loadApiGatewayConfig({ ...production, ADMIN_TOKEN: DEVELOPMENT_ADMIN_TOKEN })),
    ).toEqual(['ADMIN_TOKEN']);
  });

  test.each(['production', 'sandbox'])(
    'in %s an admin token shorter than the minimum is refused',
    (appEnv) => {
      const short = 'x'.repeat(ADMIN_TOKEN_MIN_LENGTH - 1);
      expect(
        refusedVariables(() => loadApiGatewayConfig({ ...production, APP_ENV: appEnv, ADMIN_TOKEN: short })),
      ).toEqual(['ADMIN_TOKEN']);
      const enough = 'x'.repeat(ADMIN_TOKEN_MIN_LENGTH);
      expect(loadApiGatewayConfig({ ...production, APP_ENV: appEnv, ADMIN_TOKEN: enough }).ADMIN_TOKEN).toBe(
        enough,
      );
    },
  );

  test('a stop bound no longer than the RPC timeout (its default included) is refused, naming SHUTDOWN_TIMEOUT_MS: the requests in flight would outlast it', () => {
    expect(refusedVariables(() => loadApiGatewayConfig({ ...production, RPC_TIMEOUT_MS: '30000' }))).toEqual([
      'SHUTDOWN_TIMEOUT_MS',
    ]);
    expect(
      refusedVariables(() =>
        loadApiGatewayConfig({ ...production, RPC_TIMEOUT_MS: '8000', SHUTDOWN_TIMEOUT_MS: '8000' }),
      ),
    ).toEqual(['SHUTDOWN_TIMEOUT_MS']);
    expect(
      loadApiGatewayConfig({ ...production, RPC_TIMEOUT_MS: '30000', SHUTDOWN_TIMEOUT_MS: '40000' }),
    ).toMatchObject({ RPC_TIMEOUT_MS: 30_000, SHUTDOWN_TIMEOUT_MS: 40_000 });
  });
});
