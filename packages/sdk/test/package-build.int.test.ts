import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const sdkDir = join(__dirname, '..');
const root = join(sdkDir, '../..');

/**
 * The package as npm would install it: `pnpm pack` (which builds it), unpacked into a project's node_modules, then
 * loaded by require and by import and type-checked from both kinds of module, with nothing else installed.
 */
describe('the packed SDK', () => {
  let project: string;

  beforeAll(() => {
    project = mkdtempSync(join(tmpdir(), 'sdk-consumer-'));
    execFileSync('pnpm', ['pack', '--pack-destination', project], { cwd: sdkDir, stdio: 'pipe' });
    const tarball = readdirSync(project).find((name) => name.endsWith('.tgz'))!;
    const installed = join(project, 'node_modules/@gateway/sdk');
    mkdirSync(installed, { recursive: true });
    execFileSync('tar', ['xzf', join(project, tarball), '-C', installed, '--strip-components=1']);
  }, 60_000);

  afterAll(() => rmSync(project, { recursive: true, force: true }));

  const run = (file: string, source: string): string => {
    writeFileSync(join(project, file), source);
    return execFileSync(process.execPath, [file], { cwd: project, encoding: 'utf8' }).trim();
  };

  test('has no runtime dependencies and publishes only its build, with an exports map for import and require', () => {
    const manifest = JSON.parse(
      readFileSync(join(project, 'node_modules/@gateway/sdk/package.json'), 'utf8'),
    );
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(manifest.exports['.']).toEqual({
      import: { types: './dist/index.d.mts', default: './dist/index.mjs' },
      require: { types: './dist/index.d.ts', default: './dist/index.js' },
    });
    const files = readdirSync(join(project, 'node_modules/@gateway/sdk/dist'));
    expect(files).toEqual(expect.arrayContaining(['index.js', 'index.mjs', 'index.d.ts', 'index.d.mts']));
  });

  test('loads with require (CommonJS) and with import (ESM), each with the same API', () => {
    const api =
      'Gateway,GatewayConnectionError,GatewayError,PagedList,WebhookVerificationError,errorCodes,isGatewayError,routes,verifyWebhook';
    expect(run('load.cjs', "console.log(Object.keys(require('@gateway/sdk')).sort().join(','));")).toBe(api);
    expect(run('load.mjs', "console.log(Object.keys(await import('@gateway/sdk')).sort().join(','));")).toBe(
      api,
    );
    expect(
      run(
        'client.mjs',
        "import { Gateway } from '@gateway/sdk';\n" +
          "console.log(typeof new Gateway({ apiKey: 'sk_test_x' }).payments.create);",
      ),
    ).toBe('function');
  });

  test('declares the public shapes on their own: no internal money field, nothing imported', () => {
    const declarations = readFileSync(join(project, 'node_modules/@gateway/sdk/dist/index.d.ts'), 'utf8');
    expect(declarations).toContain('interface Payment {');
    expect(declarations).not.toContain('_centavos');
    expect(declarations).not.toMatch(/^\s*import\b|\bimport\(/m);
  });

  test('type-checks in an ESM and a CommonJS TypeScript project', () => {
    const consumer = [
      "import { Gateway, isGatewayError, verifyWebhook, type Payment, type WebhookEvent } from '@gateway/sdk';",
      "const gateway = new Gateway({ apiKey: 'sk_test_x' });",
      "export const payment: Promise<Payment> = gateway.payments.get('pay_1');",
      "export const event: WebhookEvent = verifyWebhook('{}', {}, 'whsec_x');",
      'export const known = (err: unknown): boolean => isGatewayError(err, "NOT_FOUND");',
      '',
    ].join('\n');
    writeFileSync(join(project, 'consumer.mts'), consumer);
    writeFileSync(join(project, 'consumer.cts'), consumer);
    const tsc = join(root, 'node_modules/.bin/tsc');
    const options = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext'];
    const typeRoots = ['--typeRoots', join(root, 'node_modules/@types'), '--types', 'node'];
    expect(() =>
      execFileSync(tsc, [...options, ...typeRoots, 'consumer.mts', 'consumer.cts'], {
        cwd: project,
        stdio: 'pipe',
      }),
    ).not.toThrow();
  });
});
