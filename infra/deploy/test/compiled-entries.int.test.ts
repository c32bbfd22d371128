import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { isolatedEnvironment, type IsolatedEnvironment } from '@gateway/testkit';
import { compiledEntries, compiledEntry, compilePackage } from '../tools/build';
import { repoRoot, workspacePackages } from './support/workspace';

/**
 * What the images run: the compiled files (`pnpm build`, which jest's global setup ran before this file), under plain
 * node, beside production dependencies only. The stack's own end-to-end files run these same files (the test stacks
 * start with STACK_BUILD=compiled).
 */

const run = promisify(execFile);

/** The run stage's install, word by word, as the Dockerfile writes it: `pnpm install --frozen-lockfile --prod ...`. */
function imageInstall(): string[] {
  const dockerfile = readFileSync(join(repoRoot, 'infra/docker/Dockerfile'), 'utf8');
  const runStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  const line = runStage.split('\n').find((text) => text.startsWith('RUN pnpm install'))!;
  return line
    .slice('RUN '.length)
    .split(/\s+/)
    .map((word) => word.replace(/^"(.*)"$/, '$1'));
}

/** Every compiled file, from the repository's root. */
const compiledFiles = Object.entries(compiledEntries).flatMap(([dir, names]) =>
  names.map((name) => ({ dir, name, file: compiledEntry(dir, name) })),
);

describe('the compiled entries, as an image holds them', () => {
  let image: string;
  let env: IsolatedEnvironment;

  beforeAll(async () => {
    // The workspace's manifests and lockfile, installed without development dependencies (as the image's run stage
    // does), then the compiled files: no TypeScript, no loader, no test tool beside them.
    image = mkdtempSync(join(tmpdir(), 'gateway-image-'));
    for (const file of ['package.json', 'pnpm-lock.yaml', 'pnpm-workspace.yaml', '.npmrc'])
      cpSync(join(repoRoot, file), join(image, file));
    for (const { folder } of workspacePackages()) {
      mkdirSync(join(image, folder), { recursive: true });
      cpSync(join(repoRoot, folder, 'package.json'), join(image, folder, 'package.json'));
    }
    await run('pnpm', [...imageInstall().slice(1), '--offline'], {
      cwd: image,
      env: { ...process.env, CI: 'true' },
    });
    for (const { dir } of compiledFiles)
      cpSync(join(repoRoot, dir, 'dist'), join(image, dir, 'dist'), { recursive: true });
    env = await isolatedEnvironment('image');
  }, 120_000);

  afterAll(async () => {
    rmSync(image, { recursive: true, force: true });
    await env?.database.drop();
  });

  test('the image installs production dependencies only: no loader, compiler or test tool anywhere', () => {
    expect(imageInstall().slice(0, 4)).toEqual(['pnpm', 'install', '--frozen-lockfile', '--prod']);
    const installed = readdirSync(join(image, 'node_modules/.pnpm'));
    expect(installed.length).toBeGreaterThan(100);
    // (typescript itself is there: @solana/web3.js's own dependencies name it as a peer, which pnpm installs; nothing
    // loads it.)
    for (const tool of [
      'tsx',
      'esbuild',
      'ts-node',
      'jest',
      '@swc+core',
      'testcontainers',
      'playwright-core',
    ])
      expect({ tool, installed: installed.filter((dir) => dir.startsWith(`${tool}@`)) }).toEqual({
        tool,
        installed: [],
      });
  });

  test('every process and broker step loads with plain node, finding each package it requires', async () => {
    // Loaded, not started: a process starts only as node's entry (`require.main === module`). Some libraries keep a
    // timer from their first load (metrics), so the probe exits by itself once the file is loaded.
    const loadable = compiledFiles.filter(({ name }) => name !== 'migrate' && !name.startsWith('commands/'));
    expect(loadable.length).toBeGreaterThanOrEqual(14);
    for (const { file } of loadable) {
      const { stdout, stderr } = await run(
        process.execPath,
        ['-e', `require(${JSON.stringify(`./${file}`)}); process.exit(0)`],
        {
          cwd: image,
        },
      );
      expect({ file, stdout, stderr }).toEqual({ file, stdout: '', stderr: '' });
    }
  }, 60_000);

  test("every service's compiled migrations create its schema (as its Kubernetes init container runs them)", async () => {
    const migrations = compiledFiles.filter(({ name }) => name === 'migrate');
    expect(migrations.map(({ dir }) => dir)).toEqual(
      expect.arrayContaining(['services/payment', 'services/api-gateway', 'services/dashboard']),
    );
    for (const { dir, file } of migrations) {
      const done = await run(process.execPath, ['--enable-source-maps', file], {
        cwd: image,
        env: { PATH: process.env.PATH, ...env.config },
      }).then(
        () => 'migrated',
        (err: { stderr?: string }) => `failed: ${err.stderr ?? ''}`,
      );
      expect({ dir, done }).toEqual({ dir, done: 'migrated' });
    }
  }, 120_000);

  test("the dashboard's compiled operator:invite runs in the image, and without an address says how to call it", async () => {
    expect(compiledFiles.map(({ file }) => file)).toContain(
      'services/dashboard/dist/commands/operator-invite.js',
    );
    const failed = await run(process.execPath, ['services/dashboard/dist/commands/operator-invite.js'], {
      cwd: image,
      env: { PATH: process.env.PATH },
    }).then(
      () => undefined,
      (err: { code?: number; stderr?: string }) => err,
    );
    expect(failed?.code).toBe(2);
    expect(failed?.stderr).toMatch(/usage: .*operator:invite <email>/);
  });

  test('a stack trace from a compiled file names the TypeScript source and line', async () => {
    const script =
      "require('./services/customer/dist/main.js').startCustomerService(null).catch((err) => console.log(err.stack))";
    const { stdout } = await run(process.execPath, ['--enable-source-maps', '-e', script], { cwd: image });
    expect(stdout).toMatch(/TypeError/);
    expect(stdout).toMatch(/packages\/service-runtime\/src\/service-runtime\.ts:\d+:\d+/);
    expect(stdout).toMatch(/services\/customer\/src\/main\.ts:\d+:\d+/);
  });
});

describe('the build refuses what would break a compiled file', () => {
  let dir: string;
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-build-'));
    write('package.json', JSON.stringify({ name: 'probe', dependencies: { joi: '^17.13.3' } }));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('compiles a declared third-party import to a require of it, with a source map', async () => {
    write('src/main.ts', "import Joi from 'joi';\nexport const schema = Joi.string();\n");
    await compilePackage(dir, ['main'], join(dir, 'dist'));
    const compiled = readFileSync(join(dir, 'dist/main.js'), 'utf8');
    expect(compiled).toMatch(/require\("joi"\)/);
    expect(compiled).toMatch(/sourceMappingURL=main\.js\.map/);
  });

  test('a third-party package the package does not declare (an image would not hold it)', async () => {
    write('src/helper.ts', "export { default as leftPad } from 'left-pad';\n");
    write('src/main.ts', "export * from './helper';\n");
    await expect(compilePackage(dir, ['main'], join(dir, 'dist'))).rejects.toThrow(
      /must declare what its compiled files require: left-pad \(imported by .*helper\.ts\)/,
    );
  });

  test('a module that runs itself on require.main === module, imported by an entry', async () => {
    write('src/script.ts', "export const x = 1;\nif (require.main === module) console.log('ran');\n");
    write('src/main.ts', "import { x } from './script';\nconsole.log(x);\n");
    await expect(compilePackage(dir, ['main'], join(dir, 'dist'))).rejects.toThrow(
      /script\.ts runs itself when require\.main === module/,
    );
  });

  test('an entry imported by another entry, whose guard would start that process inside the other', async () => {
    write('src/main.ts', "export const port = 1;\nif (require.main === module) console.log('serving');\n");
    write('src/migrate.ts', "import { port } from './main';\nconsole.log(port);\n");
    await expect(compilePackage(dir, ['main', 'migrate'], join(dir, 'dist'))).rejects.toThrow(
      /main\.ts runs itself when require\.main === module/,
    );
  });

  test("decorators compile as the workspace's (TypeORM's legacy ones), wherever the package is", async () => {
    // A legacy property decorator is called with the prototype and the property's name as the class is defined; a
    // standard one would get no target and a context object instead.
    write(
      'src/main.ts',
      'export const seen: unknown[] = [];\nfunction column(target: object, key: string) { seen.push(typeof target, key); }\nexport class Payment { @column amount!: number; }\n',
    );
    await compilePackage(dir, ['main'], join(dir, 'dist'));
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the file just compiled
    const compiled = require(join(dir, 'dist/main.js')) as { seen: unknown[] };
    expect(compiled.seen).toEqual(['object', 'amount']);
  });

  test('two assets of one name, which would share dist/assets', async () => {
    write('src/main.ts', 'export {};\n');
    write('src/a/assets/page.css', 'a {}');
    write('src/b/assets/page.css', 'b {}');
    await expect(compilePackage(dir, ['main'], join(dir, 'dist'))).rejects.toThrow(
      /two assets named page\.css/,
    );
  });
});
