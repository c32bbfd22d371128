import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '../../..');

/** Runs the customer service's entry point with exactly `env` (and PATH); it must exit on its own at start. */
function start(env: Record<string, string>) {
  return spawnSync(join(root, 'node_modules/.bin/tsx'), [join(__dirname, '../src/main.ts')], {
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
    timeout: 20_000,
  });
}

describe('customer service start-up', () => {
  test('with an invalid variable the process exits at once, naming the variable', () => {
    const result = start({ APP_ENV: 'sandbox', AMQP_URL: 'not a url', LOG_LEVEL: 'loud' });
    expect(result.status).toBe(78);
    expect(result.stderr).toContain('AMQP_URL');
    expect(result.stderr).toContain('LOG_LEVEL');
  });

  test('without APP_ENV it is production: it refuses the local defaults, naming each missing variable', () => {
    const result = start({});
    expect(result.status).toBe(78);
    expect(result.stderr).toContain('"DATABASE_URL" is required');
    expect(result.stderr).toContain('"AMQP_URL" is required');
    expect(result.stderr).toContain('(bad variables: DATABASE_URL, AMQP_URL)');
  });

  test('in production, one missing variable is the only one named', () => {
    const result = start({
      APP_ENV: 'production',
      DATABASE_URL: 'postgres://customer@db.internal:5432/gateway',
    });
    expect(result.status).toBe(78);
    expect(result.stderr).toContain('(bad variables: AMQP_URL)');
  });
});
