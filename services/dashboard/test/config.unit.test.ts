import { randomBytes } from 'node:crypto';
import { refusedVariables } from '@gateway/testkit';
import { loadDashboardConfig } from '../src/config';

describe('the dashboard config', () => {
  test('in production it refuses to start without its settings, naming each, and never takes a sandbox default', () => {
    expect(refusedVariables(() => loadDashboardConfig({ APP_ENV: 'production' }))).toEqual([
      'ADMIN_TOKEN',
      'DASHBOARD_PUBLIC_URL',
      'DASHBOARD_SEAL_KEY',
      'DATABASE_URL',
      'GATEWAY_URL',
      'MAIL_FROM',
      'REDIS_URL',
      'SMTP_URL',
    ]);
    const sandbox = loadDashboardConfig({ APP_ENV: 'sandbox' });
    const production = {
      APP_ENV: 'production',
      DATABASE_URL: 'postgres://gateway:secret@db.internal:5432/gateway',
      REDIS_URL: 'redis://redis.internal:6379',
      GATEWAY_URL: 'http://api-gateway',
      ADMIN_TOKEN: randomBytes(32).toString('hex'),
      DASHBOARD_SEAL_KEY: randomBytes(32).toString('base64'),
      DASHBOARD_PUBLIC_URL: 'https://painel.example.com',
      SMTP_URL: 'smtp://painel:secret@smtp.example.com:587',
      MAIL_FROM: 'Painel <painel@example.com>',
    };
    expect(loadDashboardConfig(production)).toMatchObject({
      DASHBOARD_PORT: 3080,
      GATEWAY_URL: 'http://api-gateway',
    });
    // The sandbox's own secrets are public: production refuses them even when set explicitly.
    for (const name of ['ADMIN_TOKEN', 'DASHBOARD_SEAL_KEY'] as const)
      expect(
        refusedVariables(() => loadDashboardConfig({ ...production, [name]: String(sandbox[name]) })),
      ).toEqual([name]);
  });

  test('the sandbox runs with its defaults; a seal key must be 32 bytes', () => {
    expect(loadDashboardConfig({ APP_ENV: 'sandbox' })).toMatchObject({
      DASHBOARD_PORT: 3080,
      GATEWAY_URL: 'http://127.0.0.1:3000',
      SESSION_IDLE_SECONDS: 28_800,
      LOGIN_MAX_FAILURES: 5,
      // The mail catcher `npm start` runs, and links to the dashboard it starts.
      SMTP_URL: 'smtp://127.0.0.1:1025',
      DASHBOARD_PUBLIC_URL: 'http://127.0.0.1:3080',
    });
    // On another port, its links follow it (a local start given DASHBOARD_PORT); a public address said is kept.
    expect(loadDashboardConfig({ APP_ENV: 'sandbox', DASHBOARD_PORT: '3381' })).toMatchObject({
      DASHBOARD_PORT: 3381,
      DASHBOARD_PUBLIC_URL: 'http://127.0.0.1:3381',
    });
    expect(
      loadDashboardConfig({
        APP_ENV: 'sandbox',
        DASHBOARD_PORT: '3381',
        DASHBOARD_PUBLIC_URL: 'https://painel.example.com',
      }).DASHBOARD_PUBLIC_URL,
    ).toBe('https://painel.example.com');
    // Mail goes only over SMTP: no other scheme is taken.
    expect(
      refusedVariables(() =>
        loadDashboardConfig({ APP_ENV: 'sandbox', SMTP_URL: 'http://smtp.example.com' }),
      ),
    ).toEqual(['SMTP_URL']);
    expect(
      refusedVariables(() =>
        loadDashboardConfig({ APP_ENV: 'sandbox', DASHBOARD_SEAL_KEY: randomBytes(16).toString('base64') }),
      ),
    ).toEqual(['DASHBOARD_SEAL_KEY']);
  });
});
