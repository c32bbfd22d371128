import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '../../..');

describe('customer service start-up', () => {
  test('with an invalid variable the process exits at once, naming the variable', () => {
    const result = spawnSync(join(root, 'node_modules/.bin/tsx'), [join(__dirname, '../src/main.ts')], {
      env: { PATH: process.env.PATH, AMQP_URL: 'not a url', LOG_LEVEL: 'loud' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).toBe(78);
    expect(result.stderr).toContain('AMQP_URL');
    expect(result.stderr).toContain('LOG_LEVEL');
  });
});
