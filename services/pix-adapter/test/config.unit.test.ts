import { developmentValues, refusedVariables, without } from '@gateway/testkit';
import { SANDBOX_PIX_KEY, loadPixAdapterConfig } from '../src/config';

const production = {
  APP_ENV: 'production',
  DATABASE_URL: 'postgres://pix:pw@db.internal:5432/gateway',
  AMQP_URL: 'amqps://pix:pw@mq.internal:5671',
  PSP_BASE_URL: 'https://pix.psp.example.com.br',
  PSP_CLIENT_ID: 'client-of-the-operator',
  PSP_CLIENT_SECRET: 'secret-of-the-operator',
  PIX_KEY: 'c1b0a4f2-3f5e-4d4b-9a57-2e8f1d7c6b90',
  MERCHANT_CITY: 'Florianópolis',
  CALLBACK_PUBLIC_URL: 'https://pix-callbacks.example.com.br',
  CALLBACK_TOKEN: 'a-long-random-callback-token',
  PSP_ACCOUNT_SEALING_KEY: Buffer.from('a-production-sealing-key-32bytes').toString('base64'),
};

describe('pix-adapter config', () => {
  test('in the sandbox it talks to the local PSP simulator with its sandbox account', () => {
    expect(loadPixAdapterConfig({ APP_ENV: 'sandbox' })).toMatchObject({
      PSP_BASE_URL: 'http://127.0.0.1:4010',
      PIX_KEY: SANDBOX_PIX_KEY,
      MERCHANT_CITY: 'SAO PAULO',
      METRICS_HOST: '127.0.0.1',
    });
  });

  test('PSP_OAUTH_SCOPE takes space-separated OAuth scope tokens or nothing, and is unset by default', () => {
    expect(loadPixAdapterConfig({ APP_ENV: 'sandbox' }).PSP_OAUTH_SCOPE).toBeUndefined();
    expect(loadPixAdapterConfig({ APP_ENV: 'sandbox', PSP_OAUTH_SCOPE: 'cob.write pix.read' })).toMatchObject(
      {
        PSP_OAUTH_SCOPE: 'cob.write pix.read',
      },
    );
    expect(loadPixAdapterConfig({ APP_ENV: 'sandbox', PSP_OAUTH_SCOPE: '' }).PSP_OAUTH_SCOPE).toBe('');
    expect(
      refusedVariables(() => loadPixAdapterConfig({ APP_ENV: 'sandbox', PSP_OAUTH_SCOPE: 'cob.write  "x"' })),
    ).toEqual(['PSP_OAUTH_SCOPE']);
  });

  test('without APP_ENV it runs as production and names every variable it needs', () => {
    expect(refusedVariables(() => loadPixAdapterConfig({}))).toEqual(
      Object.keys(production)
        .filter((name) => name !== 'APP_ENV')
        .sort(),
    );
  });

  test('in production, with every variable set, it loads them and no local value', () => {
    const config = loadPixAdapterConfig(production);
    expect(config).toMatchObject({ ...production, MERCHANT_CITY: 'Florianopolis' });
    expect(config.PSP_OAUTH_TOKEN_URL).toBe('https://pix.psp.example.com.br/oauth/token');
    expect(developmentValues(config, ['METRICS_HOST', 'CALLBACK_HOST'])).toEqual({});
  });

  test('in production, a profile whose PSP calls back over mutual TLS needs the listener (or the ingress) to ask for its certificate', () => {
    const efi = { ...production, PSP_PROFILE: 'efi' };
    expect(refusedVariables(() => loadPixAdapterConfig(efi))).toEqual(['CALLBACK_CLIENT_CA']);
    expect(
      loadPixAdapterConfig({
        ...efi,
        CALLBACK_TLS_CERT: '/etc/gateway/callback.crt',
        CALLBACK_TLS_KEY: '/etc/gateway/callback.key',
        CALLBACK_CLIENT_CA: '/etc/gateway/efi-ca.crt',
      }).CALLBACK_CLIENT_CA,
    ).toBe('/etc/gateway/efi-ca.crt');
    expect(loadPixAdapterConfig({ ...efi, CALLBACK_MTLS_AT_INGRESS: 'true' }).CALLBACK_MTLS_AT_INGRESS).toBe(
      true,
    );
    // A PSP that calls back without it, and the sandbox, need neither.
    expect(loadPixAdapterConfig(production).CALLBACK_MTLS_AT_INGRESS).toBe(false);
    expect(
      loadPixAdapterConfig({ APP_ENV: 'sandbox', PSP_PROFILE: 'efi' }).CALLBACK_CLIENT_CA,
    ).toBeUndefined();
  });

  test('the callback listener and the metrics listener take a bind host by the same rule', () => {
    const hosts = { CALLBACK_HOST: 'not a host!', METRICS_HOST: 'not a host!' };
    expect(refusedVariables(() => loadPixAdapterConfig({ APP_ENV: 'sandbox', ...hosts }))).toEqual(
      Object.keys(hosts).sort(),
    );
    expect(loadPixAdapterConfig({ APP_ENV: 'sandbox', CALLBACK_HOST: '0.0.0.0' }).CALLBACK_HOST).toBe(
      '0.0.0.0',
    );
  });

  test.each(Object.keys(production).filter((name) => name !== 'APP_ENV'))(
    'in production, without %s it refuses to start, naming it',
    (name) => {
      expect(refusedVariables(() => loadPixAdapterConfig(without(production, name)))).toEqual([name]);
    },
  );

  test('in production, the sandbox credentials, key and callback token are refused even when set explicitly', () => {
    const sandbox = loadPixAdapterConfig({ APP_ENV: 'sandbox' });
    const reused = {
      PSP_CLIENT_ID: sandbox.PSP_CLIENT_ID,
      PSP_CLIENT_SECRET: sandbox.PSP_CLIENT_SECRET,
      PIX_KEY: sandbox.PIX_KEY,
      CALLBACK_TOKEN: sandbox.CALLBACK_TOKEN,
      PSP_ACCOUNT_SEALING_KEY: sandbox.PSP_ACCOUNT_SEALING_KEY,
    };
    expect(refusedVariables(() => loadPixAdapterConfig({ ...production, ...reused }))).toEqual(
      Object.keys(reused).sort(),
    );
  });

  test('payouts are sent from the receiving key unless PAYOUT_PAYER_PIX_KEY names another; production refuses the sandbox key', () => {
    expect(loadPixAdapterConfig({ APP_ENV: 'sandbox' }).PAYOUT_PAYER_PIX_KEY).toBe(SANDBOX_PIX_KEY);
    expect(loadPixAdapterConfig(production).PAYOUT_PAYER_PIX_KEY).toBe(production.PIX_KEY);
    expect(
      loadPixAdapterConfig({ ...production, PAYOUT_PAYER_PIX_KEY: 'pagamentos@example.com.br' })
        .PAYOUT_PAYER_PIX_KEY,
    ).toBe('pagamentos@example.com.br');
    expect(
      refusedVariables(() => loadPixAdapterConfig({ ...production, PAYOUT_PAYER_PIX_KEY: SANDBOX_PIX_KEY })),
    ).toEqual(['PAYOUT_PAYER_PIX_KEY']);
  });

  test('PSP_PROFILE picks a declared profile, bcb by default, and requires the settings it sends', () => {
    expect(loadPixAdapterConfig({ APP_ENV: 'sandbox' }).PSP_PROFILE).toBe('bcb');
    expect(
      refusedVariables(() => loadPixAdapterConfig({ APP_ENV: 'sandbox', PSP_PROFILE: 'caixa' })),
    ).toEqual(['PSP_PROFILE']);
    expect(refusedVariables(() => loadPixAdapterConfig({ ...production, PSP_PROFILE: 'bb' }))).toEqual([
      'PSP_DEVELOPER_APP_KEY',
    ]);
    expect(
      loadPixAdapterConfig({ ...production, PSP_PROFILE: 'bb', PSP_DEVELOPER_APP_KEY: 'app-key' }),
    ).toMatchObject({ PSP_PROFILE: 'bb', PSP_DEVELOPER_APP_KEY: 'app-key' });
    expect(refusedVariables(() => loadPixAdapterConfig({ ...production, PSP_PROFILE: 'inter' }))).toEqual([
      'PSP_ACCOUNT_NUMBER',
    ]);
    expect(
      refusedVariables(() =>
        loadPixAdapterConfig({ ...production, PSP_PROFILE: 'inter', PSP_ACCOUNT_NUMBER: '12-34' }),
      ),
    ).toEqual(['PSP_ACCOUNT_NUMBER']);
  });

  test('with the sicoob profile production needs no client secret (the token is for the client id alone)', () => {
    const { PSP_CLIENT_SECRET: _unused, ...withoutSecret } = production;
    expect(refusedVariables(() => loadPixAdapterConfig(withoutSecret))).toEqual(['PSP_CLIENT_SECRET']);
    expect(
      loadPixAdapterConfig({ ...withoutSecret, PSP_PROFILE: 'sicoob' }).PSP_CLIENT_SECRET,
    ).toBeUndefined();
  });

  test('the client certificate is a PEM pair or a .p12, not both; the callback client CA needs the listener TLS', () => {
    const sandbox = { APP_ENV: 'sandbox' };
    expect(
      loadPixAdapterConfig({ ...sandbox, PSP_MTLS_PFX: '/run/psp.p12', PSP_MTLS_PASSPHRASE: 'pass' }),
    ).toMatchObject({ PSP_MTLS_PFX: '/run/psp.p12', PSP_MTLS_PASSPHRASE: 'pass' });
    expect(
      refusedVariables(() =>
        loadPixAdapterConfig({
          ...sandbox,
          PSP_MTLS_PFX: '/run/psp.p12',
          PSP_MTLS_CERT: '/run/psp.crt',
          PSP_MTLS_KEY: '/run/psp.key',
        }),
      ),
    ).not.toEqual([]);
    expect(
      refusedVariables(() => loadPixAdapterConfig({ ...sandbox, PSP_MTLS_PASSPHRASE: 'pass' })),
    ).not.toEqual([]);
    expect(
      refusedVariables(() => loadPixAdapterConfig({ ...sandbox, CALLBACK_CLIENT_CA: '/run/ca.crt' })),
    ).not.toEqual([]);
    expect(
      loadPixAdapterConfig({
        ...sandbox,
        CALLBACK_TLS_CERT: '/run/cb.crt',
        CALLBACK_TLS_KEY: '/run/cb.key',
        CALLBACK_CLIENT_CA: '/run/ca.crt',
      }),
    ).toMatchObject({ CALLBACK_CLIENT_CA: '/run/ca.crt' });
  });
});
