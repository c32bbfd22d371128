import { loadPspSimulatorConfig } from '../src/config';

/** Unprefixed variables that another process sharing the environment reads. */
const anotherProcessVariables = { PORT: '8080', HOST: '0.0.0.0', CLIENT_ID: 'other', CLIENT_SECRET: 'x' };

describe('psp-simulator config', () => {
  test('reads only its prefixed variables: a PORT, HOST or CLIENT_ID meant for another process is ignored', () => {
    expect(loadPspSimulatorConfig(anotherProcessVariables)).toMatchObject({
      PSP_SIMULATOR_PORT: 4010,
      PSP_SIMULATOR_HOST: '127.0.0.1',
      PSP_SIMULATOR_CLIENT_ID: 'sandbox-client',
      PSP_SIMULATOR_CLIENT_SECRET: 'sandbox-secret',
    });
    expect(
      loadPspSimulatorConfig({ PSP_SIMULATOR_PORT: '4999', PSP_SIMULATOR_HOST: '0.0.0.0' }),
    ).toMatchObject({
      PSP_SIMULATOR_PORT: 4999,
      PSP_SIMULATOR_HOST: '0.0.0.0',
    });
  });

  test('reads a merchant city with accents the way the PIX adapter does', () => {
    expect(
      loadPspSimulatorConfig({ PSP_SIMULATOR_MERCHANT_CITY: 'São Paulo' }).PSP_SIMULATOR_MERCHANT_CITY,
    ).toBe('Sao Paulo');
    expect(() => loadPspSimulatorConfig({ PSP_SIMULATOR_MERCHANT_CITY: '東京' })).toThrow(
      /PSP_SIMULATOR_MERCHANT_CITY/,
    );
  });

  test('behaves like the baseline unless PSP_SIMULATOR_PROFILE names a bank, and requires what that bank checks', () => {
    expect(loadPspSimulatorConfig({}).PSP_SIMULATOR_PROFILE).toBe('bcb');
    expect(() => loadPspSimulatorConfig({ PSP_SIMULATOR_PROFILE: 'bb' })).toThrow(
      /PSP_SIMULATOR_DEVELOPER_APP_KEY/,
    );
    expect(() => loadPspSimulatorConfig({ PSP_SIMULATOR_PROFILE: 'inter' })).toThrow(
      /PSP_SIMULATOR_ACCOUNT_NUMBER/,
    );
    expect(
      loadPspSimulatorConfig({ PSP_SIMULATOR_PROFILE: 'inter', PSP_SIMULATOR_ACCOUNT_NUMBER: '123456' }),
    ).toMatchObject({ PSP_SIMULATOR_PROFILE: 'inter', PSP_SIMULATOR_ACCOUNT_NUMBER: '123456' });
    expect(() => loadPspSimulatorConfig({ PSP_SIMULATOR_PROFILE: 'caixa' })).toThrow(/PSP_SIMULATOR_PROFILE/);
  });
});
