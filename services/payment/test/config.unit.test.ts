import { developmentValues, refusedVariables, without } from '@gateway/testkit';
import { defaultFeeRules, loadPaymentConfig } from '../src/config';

const production = {
  APP_ENV: 'production',
  DATABASE_URL: 'postgres://payment:pw@db.internal:5432/gateway',
  AMQP_URL: 'amqps://payment:pw@mq.internal:5671',
};

describe('payment config', () => {
  test('without APP_ENV it runs as production and names every variable it needs', () => {
    expect(refusedVariables(() => loadPaymentConfig({}))).toEqual(['AMQP_URL', 'DATABASE_URL']);
  });

  test('in production, with every variable set, it loads them and no local value', () => {
    const config = loadPaymentConfig(production);
    expect(config).toMatchObject(production);
    expect(developmentValues(config, ['METRICS_HOST'])).toEqual({});
  });

  test.each(['DATABASE_URL', 'AMQP_URL'])(
    'in production, without %s it refuses to start, naming it',
    (name) => {
      expect(refusedVariables(() => loadPaymentConfig(without(production, name)))).toEqual([name]);
    },
  );

  test('in the sandbox it runs on this machine, metrics on loopback', () => {
    expect(loadPaymentConfig({ APP_ENV: 'sandbox', METRICS_PORT: '9101' })).toMatchObject({
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/gateway',
      METRICS_PORT: 9101,
      METRICS_HOST: '127.0.0.1',
    });
  });

  test('the sandbox gives new businesses 99bps+0 on both rails; production gives none unless set', () => {
    const sandboxDefaults = defaultFeeRules(loadPaymentConfig({ APP_ENV: 'sandbox' }));
    expect(sandboxDefaults).toEqual({
      pix: { percentBps: 99, fixedCentavos: 0 },
      crypto: { percentBps: 99, fixedCentavos: 0 },
    });
    expect(defaultFeeRules(loadPaymentConfig(production))).toEqual({ pix: null, crypto: null });
    const set = loadPaymentConfig({ ...production, DEFAULT_FEE_PIX: '150bps+10', DEFAULT_FEE_CRYPTO: '' });
    expect(defaultFeeRules(set)).toEqual({ pix: { percentBps: 150, fixedCentavos: 10 }, crypto: null });
  });

  test('a default fee rule that is not <bps>bps+<centavos> refuses the start, naming both', () => {
    expect(
      refusedVariables(() =>
        loadPaymentConfig({ APP_ENV: 'sandbox', DEFAULT_FEE_PIX: '1.5%', DEFAULT_FEE_CRYPTO: '99bps+-1' }),
      ),
    ).toEqual(['DEFAULT_FEE_CRYPTO', 'DEFAULT_FEE_PIX']);
  });
});
