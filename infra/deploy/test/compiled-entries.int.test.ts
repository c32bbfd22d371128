import { type ChildProcess, execFile, spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { deleteBrokerNames, isolatedEnvironment, type IsolatedEnvironment } from '@gateway/testkit';
import { compiledEntries, compilePackage } from '../tools/build';
import { imagePackage, readDockerfile, type ImageStage } from './support/dockerfile';
import { readManifest, repoRoot, workspacePackages } from './support/workspace';

/**
 * What the images hold and run, made outside Docker: the Dockerfile's own build-stage commands (the bills of
 * materials, then each package's frozen production install with its compiled files beside it), run here, give each target the
 * folder its COPY takes; each image's processes then run from it under plain node, with the image's environment. The
 * compiled files are the ones jest's global setup built; the stack's end-to-end files run these same files (the test
 * stacks start with STACK_BUILD=compiled).
 */

const run = promisify(execFile);
const dockerfile = readDockerfile();

/**
 * A build-stage command as the Dockerfile writes it, its folders moved into `scratch`: the workspace (/app) and what the
 * deploys write (/deploy, /out). Any other absolute path fails the test rather than reach this machine's own root.
 */
function inScratch(command: string, scratch: string): string {
  const mapped = command.replace(/(?<=^|[\s"'])\/(app|deploy|out)(?=[/\s"']|$)/g, (_match, folder: string) =>
    join(scratch, folder),
  );
  const unmapped = /(?:^|[\s"'])(\/[^\s"']*)/.exec(mapped.split(scratch).join('SCRATCH'));
  if (unmapped)
    throw new Error(`the build stage uses ${unmapped[1]}, which this test does not map: ${command}`);
  return mapped;
}

/** Runs `task` on each item, at most `width` at a time (two cores: two deploys at once). */
async function inTurns<T>(items: T[], width: number, task: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await task(item);
    }),
  );
}

/** Every file under a folder (symbolic links as files), relative to it, sorted; `skip` names folders left out. */
function filesUnder(dir: string, skip: (path: string) => boolean = () => false, base = dir): string[] {
  return readdirSync(dir)
    .flatMap((entry) => {
      const path = join(dir, entry);
      if (skip(path)) return [];
      return lstatSync(path).isDirectory() ? filesUnder(path, skip, base) : [relative(base, path)];
    })
    .sort();
}

/** The packages a node_modules folder links at its top (what its package depends on directly). */
function directDependencies(modules: string): string[] {
  return readdirSync(modules)
    .filter((entry) => !entry.startsWith('.'))
    .flatMap((entry) =>
      entry.startsWith('@') ? readdirSync(join(modules, entry)).map((name) => `${entry}/${name}`) : [entry],
    )
    .sort();
}

/** `name@version` of every package pnpm installed in a node_modules folder (its own store, `.pnpm`). */
function installedPackages(modules: string): string[] {
  const store = join(modules, '.pnpm');
  return readdirSync(store)
    .filter((key) => key !== 'node_modules' && lstatSync(join(store, key)).isDirectory())
    .flatMap((key) => {
      // Each entry holds its package as a folder, beside links to that package's own dependencies.
      const found = directDependencies(join(store, key, 'node_modules')).filter(
        (name) => !lstatSync(join(store, key, 'node_modules', name)).isSymbolicLink(),
      );
      return found.map((name) => {
        const { version } = JSON.parse(
          readFileSync(join(store, key, 'node_modules', name, 'package.json'), 'utf8'),
        ) as { version: string };
        return `${name}@${version}`;
      });
    })
    .sort();
}

/** A port free on the loopback now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * The process `unshare --pid --fork` forked for `container`: node itself, PID 1 of its own namespace (checked), running
 * `command`. Its PID as this machine sees it.
 */
function namespacePid1(container: ChildProcess, command: string[]): number {
  const [pid] = readFileSync(`/proc/${container.pid}/task/${container.pid}/children`, 'utf8')
    .trim()
    .split(' ');
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  expect(/^NSpid:\s+\d+\s+(\d+)$/m.exec(status)?.[1]).toBe('1');
  expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, command.length)).toEqual(command);
  return Number(pid);
}

/** A process started with its output kept (stderr; stdout too with `withStdout`), its end (exit and output) awaited. */
interface WatchedChild {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
  /** SIGKILL if it still runs, then its exit: every test's last step. */
  killIfRunning(): Promise<void>;
}

function spawnWatched(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env: NodeJS.ProcessEnv; withStdout?: boolean },
): WatchedChild {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', options.withStdout ? 'pipe' : 'ignore', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => (output += chunk.toString());
  child.stdout?.on('data', keep);
  child.stderr!.on('data', keep);
  // 'close', not 'exit': the output is whole only once the pipes have closed.
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    child,
    output: () => output,
    exited,
    async killIfRunning() {
      if (child.exitCode !== null) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** An image made here: its target, its root (the folder its COPY takes), and its process's folder in that root. */
interface Image {
  target: ImageStage;
  /** The package it holds, from the repository's root (`services/payment`). */
  folder: string;
  root: string;
  /** Its working directory, in `root`. */
  workdir: string;
  /** The environment its processes get: the image's own, and a PATH to find node. */
  env: Record<string, string>;
}

describe('the compiled entries, as each image holds them', () => {
  let scratch: string;
  let images: Image[];
  let env: IsolatedEnvironment;
  const image = (target: string) => images.find((made) => made.target.name === target)!;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'gateway-images-'));
    const workspace = join(scratch, 'app');
    const build = dockerfile.stage('build');
    // The build stage's workspace after `pnpm build`, as far as the deploys read it: the manifests, the lockfile and
    // each compiled package's dist/. (Sources are left out: the loop keeps only package.json and node_modules of what a
    // deploy copies.)
    for (const file of ['package.json', 'pnpm-lock.yaml', 'pnpm-workspace.yaml', '.npmrc'])
      cpSync(join(repoRoot, file), join(workspace, file));
    for (const { folder } of workspacePackages()) {
      mkdirSync(join(workspace, folder), { recursive: true });
      cpSync(join(repoRoot, folder, 'package.json'), join(workspace, folder, 'package.json'));
      if (compiledEntries[folder])
        cpSync(join(repoRoot, folder, 'dist'), join(workspace, folder, 'dist'), { recursive: true });
    }
    // The bills of materials, by the build stage's own command, read from this repository's frozen install as the
    // stage reads them from its own.
    const sbom = build.runs
      .flatMap((command) => command.split('&&').map((step) => step.trim()))
      .find((step) => step.startsWith('pnpm sbom '))!;
    const [, , folder] = inScratch(sbom, scratch).split(/\s+/);
    await run('pnpm', ['sbom', folder!], { cwd: repoRoot, maxBuffer: 64 * 1024 * 1024 });
    // The deploys: the stage's loop, run for one folder at a time (two at once) in the workspace.
    const loop = /^(.*?)for dir in ([^;]+); do (.*) done$/s.exec(
      build.runs.find((r) => / --filter "\.\/\$dir"/.test(r))!,
    )!;
    const [, before, globs, body] = loop as unknown as [string, string, string, string];
    const folders = globs
      .split(/\s+/)
      .flatMap((glob) =>
        readdirSync(join(workspace, dirname(glob))).map((name) => `${dirname(glob)}/${name}`),
      );
    await inTurns(folders, 2, async (dir) => {
      await run('sh', ['-c', inScratch(`${before}for dir in ${dir}; do ${body} done`, scratch)], {
        cwd: workspace,
        env: { ...process.env, CI: 'true' },
        maxBuffer: 64 * 1024 * 1024,
      });
    });
    // Each target's image: the folder it copies from the build stage, and what it copies from the build context.
    images = dockerfile.targets.map((target) => {
      const [fromBuild, ...others] = target.copies.filter((copy) => copy.from !== undefined);
      if (!fromBuild || others.length > 0 || fromBuild.destination !== '/')
        throw new Error(`${target.name}: not one COPY of its folder from the build stage to /`);
      const root = inScratch(fromBuild.sources[0]!, scratch);
      for (const copy of target.copies.filter((step) => step.from === undefined))
        for (const source of copy.sources) cpSync(join(repoRoot, source), join(root, copy.destination));
      const folder = imagePackage(target)!;
      return {
        target,
        folder,
        root,
        workdir: join(root, target.workdir!),
        env: { PATH: process.env.PATH!, ...target.env },
      };
    });
    env = await isolatedEnvironment('image');
  }, 600_000);

  afterAll(async () => {
    // The service run as PID 1 declared the whole broker topology under this prefix (it has exited: its test awaits it).
    if (env) await deleteBrokerNames(env.config.AMQP_PREFIX).catch(() => undefined);
    await env?.database.drop().catch(() => undefined);
    rmSync(scratch, { recursive: true, force: true });
  });

  test('each image holds its own package alone: its manifest, its production dependencies, its compiled files, its bill of materials', () => {
    expect(images.map(({ target }) => target.name).sort()).toEqual(
      dockerfile.targets.map(({ name }) => name).sort(),
    );
    for (const { target, folder, root, workdir } of images) {
      const name = basename(folder);
      expect({ target: target.name, root: readdirSync(root) }).toEqual({
        target: target.name,
        root: ['app'],
      });
      // Under /app: the package's folder at its repository path, the installed packages its links reach
      // (node_modules/.pnpm), its bill of materials, and what the target copies from the context (the definitions file
      // of the deploy steps), nothing else: no other package's folder, no workspace manifest or lockfile.
      expect(readdirSync(join(root, 'app', 'node_modules'))).toContain('.pnpm');
      expect({
        target: target.name,
        files: filesUnder(
          join(root, 'app'),
          (path) => path === workdir || path === join(root, 'app', 'node_modules'),
        ),
      }).toEqual({
        target: target.name,
        files: [
          `sbom/${name}.cdx.json`,
          ...target.copies
            .filter((copy) => copy.from === undefined)
            .map((copy) => relative('/app', copy.destination)),
        ].sort(),
      });
      expect({ target: target.name, top: readdirSync(workdir).sort() }).toEqual({
        target: target.name,
        top: ['dist', 'node_modules', 'package.json'],
      });
      expect(filesUnder(join(workdir, 'dist'))).toEqual(filesUnder(join(repoRoot, folder, 'dist')));
    }
  });

  test("each image's node_modules links exactly its package's production dependencies, no development one", () => {
    const differences = images.flatMap(({ target, folder, workdir }) => {
      const linked = directDependencies(join(workdir, 'node_modules'));
      // The workspace's libraries are compiled into the files: their links are removed, so no source of theirs ships.
      const declared = Object.keys(readManifest(folder).dependencies ?? {}).filter(
        (name) => !name.startsWith('@gateway/'),
      );
      const missing = declared.filter((name) => !linked.includes(name));
      const extra = linked.filter((name) => !declared.includes(name));
      return missing.length + extra.length > 0 ? [{ target: target.name, missing, extra }] : [];
    });
    expect(differences).toEqual([]);
  });

  test('no image holds a loader, compiler or test tool', () => {
    // (typescript itself may be there: packages under @solana/web3.js name it as a peer, which pnpm installs; nothing
    // loads it.)
    const tools = [
      'tsx',
      'esbuild',
      'ts-node',
      '@swc/core',
      '@swc/jest',
      'jest',
      'testcontainers',
      'playwright-core',
    ];
    const workspaceTools = ['@gateway/testkit', '@gateway/testkit-core', '@gateway/faultkit', '@gateway/cli'];
    for (const { target, root } of images) {
      const installed = installedPackages(join(root, 'app', 'node_modules'));
      expect(installed.length).toBeGreaterThan(20);
      const found = installed.filter((pkg) =>
        [...tools, ...workspaceTools].some((tool) => pkg.startsWith(`${tool}@`)),
      );
      expect({ target: target.name, found }).toEqual({ target: target.name, found: [] });
    }
  });

  test('each image holds the versions its bill of materials lists (the lockfile)', () => {
    for (const { target, folder, root } of images) {
      const bom = JSON.parse(
        readFileSync(join(root, 'app/sbom', `${basename(folder)}.cdx.json`), 'utf8'),
      ) as {
        metadata: { component: { name: string } };
        components: Array<{ name: string; version: string }>;
      };
      expect(bom.metadata.component.name).toBe(readManifest(folder).name);
      const listed = new Set(bom.components.map(({ name, version }) => `${name}@${version}`));
      const unlisted = installedPackages(join(root, 'app', 'node_modules')).filter((pkg) => !listed.has(pkg));
      expect({ target: target.name, unlisted }).toEqual({ target: target.name, unlisted: [] });
    }
  });

  test('every process and deploy step loads with plain node in its image, from its working directory', async () => {
    // Loaded, not started: a process starts only as node's entry (`require.main === module`). Some libraries keep a
    // timer from their first load (metrics), so the probe exits by itself once the file is loaded.
    const loads = images.flatMap(({ target, folder, workdir, env: imageEnv }) =>
      compiledEntries[folder]!.filter((name) => name !== 'migrate' && !name.startsWith('commands/')).map(
        (name) => ({ target: target.name, name, workdir, imageEnv }),
      ),
    );
    expect(loads.length).toBeGreaterThanOrEqual(14);
    const failed: Array<{ target: string; name: string; output: string }> = [];
    for (const { target, name, workdir, imageEnv } of loads) {
      const output = await run(
        process.execPath,
        ['-e', `require(${JSON.stringify(`./dist/${name}.js`)}); process.exit(0)`],
        { cwd: workdir, env: imageEnv },
      ).then(
        ({ stdout, stderr }) => stdout + stderr,
        (err: { stderr?: string }) => err.stderr ?? String(err),
      );
      if (output !== '') failed.push({ target, name, output });
    }
    expect(failed).toEqual([]);
  }, 120_000);

  /**
   * A preload that records each Intl formatter and locale call the process makes, and writes them (a JSON array) to
   * `INTL_MADE_FILE` as it exits. A time zone's formatter reads about 6.5 MiB of ICU's data, which then stays
   * resident (ADR 0051).
   */
  function intlRecorder(): string {
    const preload = join(scratch, 'intl-formatters-made.js');
    writeFileSync(
      preload,
      [
        'const made = [];',
        "for (const name of ['DateTimeFormat', 'NumberFormat', 'Collator', 'PluralRules', 'RelativeTimeFormat', 'ListFormat', 'DisplayNames', 'Segmenter']) {",
        '  const record = () => made.push(name);',
        '  Intl[name] = new Proxy(Intl[name], {',
        '    construct: (target, args, newTarget) => (record(), Reflect.construct(target, args, newTarget)),',
        '    apply: (target, self, args) => (record(), Reflect.apply(target, self, args)),',
        '  });',
        '}',
        // The calls that make a formatter or a collator of their own.
        "for (const [owner, label, name] of [[String.prototype, 'String', 'localeCompare'], [Number.prototype, 'Number', 'toLocaleString'], [Date.prototype, 'Date', 'toLocaleString'], [Date.prototype, 'Date', 'toLocaleDateString'], [Date.prototype, 'Date', 'toLocaleTimeString'], [Intl, 'Intl', 'supportedValuesOf']]) {",
        '  const original = owner[name];',
        '  owner[name] = function (...args) { made.push(`${label}.${name}`); return original.apply(this, args); };',
        '}',
        "process.on('exit', () => require('node:fs').writeFileSync(process.env.INTL_MADE_FILE, JSON.stringify(made)));",
        '',
      ].join('\n'),
    );
    return preload;
  }

  test("no process makes an Intl formatter or a locale call as it loads: ICU's data stays out of a process until it formats", async () => {
    const preload = intlRecorder();
    const record = join(scratch, 'intl-made-loading.json');
    const mains = images.filter(({ folder }) => compiledEntries[folder]!.includes('main'));
    expect(mains.length).toBeGreaterThanOrEqual(9);
    const made: Array<{ target: string; formatters: string[] }> = [];
    for (const { target, workdir, env: imageEnv } of mains) {
      rmSync(record, { force: true });
      await run(
        process.execPath,
        ['--require', preload, '-e', "require('./dist/main.js'); process.exit(0)"],
        {
          cwd: workdir,
          env: { ...imageEnv, INTL_MADE_FILE: record },
        },
      );
      const formatters = JSON.parse(readFileSync(record, 'utf8')) as string[];
      if (formatters.length > 0) made.push({ target: target.name, formatters });
    }
    expect(made).toEqual([]);
  }, 120_000);

  test("an idle payment service makes no Intl formatter or locale call through every background loop's first pass, its subscription scheduler's included", async () => {
    const { workdir, env: imageEnv } = image('payment');
    const preload = intlRecorder();
    const record = join(scratch, 'intl-made-idle.json');
    // A database and broker names of its own: the migrations test below still creates payment's schema from nothing.
    const own = await isolatedEnvironment('idle');
    const port = await freePort();
    const serviceEnv = { ...imageEnv, ...own.config, METRICS_PORT: String(port), INTL_MADE_FILE: record };
    rmSync(record, { force: true });
    const migrated = run(process.execPath, ['dist/migrate.js'], { cwd: workdir, env: serviceEnv });
    await migrated.catch(async (err: unknown) => {
      await own.database.drop().catch(() => undefined);
      throw err;
    });
    const service = spawnWatched(process.execPath, ['--require', preload, 'dist/main.js'], {
      cwd: workdir,
      env: serviceEnv,
    });
    try {
      // Each loop's passes by outcome, from its metrics (the series start at 0 when the loop starts).
      const passes = async (): Promise<Map<string, { done: number; failed: number }>> => {
        const text = await fetch(`http://127.0.0.1:${port}/metrics`).then(
          (answer) => answer.text(),
          () => '',
        );
        const byTask = new Map<string, { done: number; failed: number }>();
        for (const [, task, outcome, value] of text.matchAll(
          /^periodic_task_passes_total\{[^}]*task="([^"]+)",outcome="(done|failed)"[^}]*\} (\d+)/gm,
        ))
          byTask.set(task!, { done: 0, failed: 0, ...byTask.get(task!), [outcome!]: Number(value) });
        return byTask;
      };
      const deadline = Date.now() + 60_000;
      let seen = await passes();
      while (!seen.has('cycle-scheduler') || [...seen.values()].some(({ done }) => done === 0)) {
        if (Date.now() > deadline || service.child.exitCode !== null)
          throw new Error(
            `not every loop passed (exit ${service.child.exitCode}): ${JSON.stringify([...seen])} ${service.output()}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 200));
        seen = await passes();
      }
      expect([...seen].filter(([, { failed }]) => failed > 0)).toEqual([]);
      service.child.kill('SIGTERM');
      expect({ code: await service.exited, stderr: service.output() }).toEqual({ code: 0, stderr: '' });
      expect(JSON.parse(readFileSync(record, 'utf8'))).toEqual([]);
    } finally {
      await service.killIfRunning();
      await deleteBrokerNames(own.config.AMQP_PREFIX).catch(() => undefined);
      await own.database.drop().catch(() => undefined);
    }
  }, 120_000);

  test("every service's compiled migrations create its schema in its own image (as its Kubernetes init container runs them)", async () => {
    const migrating = images.filter(({ folder }) => compiledEntries[folder]!.includes('migrate'));
    expect(migrating.map(({ target }) => target.name)).toEqual(
      expect.arrayContaining(['payment', 'api-gateway', 'dashboard']),
    );
    for (const { target, workdir, env: imageEnv } of migrating) {
      const done = await run(process.execPath, ['dist/migrate.js'], {
        cwd: workdir,
        env: { ...imageEnv, ...env.config },
      }).then(
        () => 'migrated',
        (err: { stderr?: string }) => `failed: ${err.stderr ?? ''}`,
      );
      expect({ target: target.name, done }).toEqual({ target: target.name, done: 'migrated' });
    }
  }, 180_000);

  test("the dashboard's compiled operator:invite runs in its image, and without an address says how to call it", async () => {
    const { workdir, env: imageEnv } = image('dashboard');
    expect(existsSync(join(workdir, 'dist/commands/operator-invite.js'))).toBe(true);
    const failed = await run(process.execPath, ['dist/commands/operator-invite.js'], {
      cwd: workdir,
      env: imageEnv,
    }).then(
      () => undefined,
      (err: { code?: number; stderr?: string }) => err,
    );
    expect(failed?.code).toBe(2);
    expect(failed?.stderr).toMatch(/usage: .*operator:invite <email>/);
  });

  test('a stack trace from a compiled file names the TypeScript source and line, with no flag to node', async () => {
    const { workdir, env: imageEnv } = image('customer');
    const script =
      "require('./dist/main.js').startCustomerService(null).catch((err) => console.log(err.stack))";
    const { stdout } = await run(process.execPath, ['-e', script], { cwd: workdir, env: imageEnv });
    expect(stdout).toMatch(/TypeError/);
    expect(stdout).toMatch(/packages\/service-runtime\/src\/service-runtime\.ts:\d+:\d+/);
    expect(stdout).toMatch(/services\/customer\/src\/main\.ts:\d+:\d+/);
  });

  test("a service runs as its image's command, as PID 1 on a read-only root with /tmp writable: healthy by the image's own check, and stopped by SIGTERM", async () => {
    const { target, root, workdir } = image('customer');
    const check = target.healthcheck;
    if (check === undefined || check === 'NONE') throw new Error('customer: no health check');
    // The container's environment: the image's, then the deployment's (its database, broker and a port of its own).
    const port = await freePort();
    const containerEnv = {
      PATH: process.env.PATH!,
      ...target.env,
      ...env.config,
      METRICS_PORT: String(port),
    };
    const healthy = () =>
      run(check.test.words[0]!, check.test.words.slice(1), { env: containerEnv, timeout: 5000 }).then(
        () => true,
        () => false,
      );
    expect(await healthy()).toBe(false);

    // A PID namespace of its own (node is its PID 1) and a mount namespace in which the scratch folder is /tmp
    // (writable) while the rest of the file system, and the image's own folder, are read-only, as a container with
    // readOnlyRootFilesystem and a /tmp volume. The image's command, run from its working directory.
    const inTmp = (path: string) => join('/tmp', relative(scratch, path));
    const script = [
      'set -e',
      `mount --bind '${scratch}' /tmp`,
      'mount -o remount,bind,ro /',
      `mount --bind '${inTmp(root)}' '${inTmp(root)}'`,
      `mount -o remount,bind,ro '${inTmp(root)}'`,
      `if touch '${inTmp(workdir)}/written' 2>/dev/null || touch /written 2>/dev/null; then exit 90; fi`,
      `touch /tmp/written`,
      `cd '${inTmp(workdir)}'`,
      `exec ${target.cmd!.words.map((word) => `'${word}'`).join(' ')}`,
    ].join('\n');
    const container = spawnWatched(
      'unshare',
      ['--pid', '--fork', '--mount', '--kill-child', 'sh', '-c', script],
      {
        env: containerEnv,
      },
    );
    try {
      const deadline = Date.now() + 60_000;
      while (!(await healthy())) {
        if (Date.now() > deadline || container.child.exitCode !== null)
          throw new Error(`not healthy (exit ${container.child.exitCode}): ${container.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      const pid = namespacePid1(container.child, target.cmd!.words);
      // As `docker stop` and the kubelet do: SIGTERM to PID 1, which ignores any signal it has no handler for.
      process.kill(pid, 'SIGTERM');
      const code = await Promise.race([
        container.exited,
        new Promise((resolve) => setTimeout(() => resolve('still running'), 30_000)),
      ]);
      expect({ code, stderr: container.output() }).toEqual({ code: 0, stderr: '' });
      expect(existsSync(join(scratch, 'written'))).toBe(true);
    } finally {
      await container.killIfRunning();
    }
  }, 120_000);

  test("the deploy steps' wait, as PID 1 of a pod's init container, ends at once on SIGTERM rather than hold the pod for its grace period", async () => {
    const { target, workdir } = image('rabbitmq-definitions');
    // A vhost the file declares and the broker does not have: the wait retries until its deadline (an hour here).
    const vhost = `absent-${basename(scratch)}`;
    const definitions = join(scratch, 'absent-vhost-definitions.json');
    writeFileSync(
      definitions,
      JSON.stringify({
        vhosts: [{ name: vhost }],
        exchanges: [{ name: 'events', vhost, type: 'topic', durable: true }],
        queues: [],
        bindings: [],
        policies: [],
      }),
    );
    const command = ['node', 'dist/wait-for-rabbitmq-definitions.js'];
    const amqpUrl = new URL(env.config.AMQP_URL);
    amqpUrl.pathname = `/${encodeURIComponent(vhost)}`;
    const container = spawnWatched('unshare', ['--pid', '--fork', '--kill-child', ...command], {
      cwd: workdir,
      env: {
        PATH: process.env.PATH!,
        ...target.env,
        AMQP_URL: amqpUrl.toString(),
        RABBITMQ_DEFINITIONS_FILE: definitions,
        RABBITMQ_WAIT_SECONDS: '3600',
      },
      withStdout: true,
    });
    try {
      const deadline = Date.now() + 30_000;
      while (!container.output().includes('not in place yet, waiting')) {
        if (Date.now() > deadline || container.child.exitCode !== null)
          throw new Error(`not waiting (exit ${container.child.exitCode}): ${container.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const pid = namespacePid1(container.child, command);
      const sent = Date.now();
      process.kill(pid, 'SIGTERM');
      const code = await Promise.race([
        container.exited,
        new Promise((resolve) => setTimeout(() => resolve('still running'), 15_000)),
      ]);
      // unshare --fork answers with its child's code; 143 is a shell's code for a process ended by SIGTERM.
      expect(code).toBe(143);
      expect(Date.now() - sent).toBeLessThan(5000);
    } finally {
      await container.killIfRunning();
    }
  }, 60_000);
});

describe('the build refuses what would break a compiled file', () => {
  let dir: string;
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-build-'));
    write(
      'package.json',
      JSON.stringify({ name: 'probe', dependencies: { joi: '^17.13.3', 'source-map-support': '^0.5.21' } }),
    );
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('compiles a declared third-party import to a require of it, with a source map', async () => {
    write('src/main.ts', "import Joi from 'joi';\nexport const schema = Joi.string();\n");
    await compilePackage(dir, ['main'], join(dir, 'dist'));
    const compiled = readFileSync(join(dir, 'dist/main.js'), 'utf8');
    expect(compiled).toMatch(/require\("joi"\)/);
    expect(compiled).toMatch(/sourceMappingURL=main\.js\.map/);
  });

  test("a thrown error's stack names the TypeScript file, line and column under plain node", async () => {
    write(
      'src/main.ts',
      'export function f(): void {\n  const x = 1;\n  throw new Error(`boom ${x}`);\n}\nf();\n',
    );
    await compilePackage(dir, ['main'], join(dir, 'dist'));
    // The probe's package has no node_modules of its own: source-map-support from the deploy package's.
    const failed = await run(process.execPath, [join(dir, 'dist/main.js')], {
      env: { PATH: process.env.PATH, NODE_PATH: join(repoRoot, 'infra/deploy/node_modules') },
    }).then(
      () => undefined,
      (err: { stderr?: string }) => err,
    );
    expect(failed?.stderr).toMatch(
      /Error: boom 1\n\s+at f \(.*src\/main\.ts:3:9\)\n\s+at .*src\/main\.ts:5:1\)/,
    );
  });

  test('a package that does not declare source-map-support, which every compiled file requires first', async () => {
    write('package.json', JSON.stringify({ name: 'probe', dependencies: { joi: '^17.13.3' } }));
    write('src/main.ts', 'export {};\n');
    await expect(compilePackage(dir, ['main'], join(dir, 'dist'))).rejects.toThrow(
      /must declare what its compiled files require: source-map-support \(imported by the compiled file itself\)/,
    );
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

describe('a package with a native build and a JavaScript one', () => {
  // Beside the Solana watcher, so the probe finds its packages as the watcher's compiled file does.
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("compiles in bigint-buffer's JavaScript build: a token account's u64 amount reads back exactly, with no native lookup or warning", async () => {
    const probe = mkdtempSync(join(repoRoot, 'services/solana-watcher/.build-probe-'));
    dir = probe;
    const watcher = readManifest('services/solana-watcher').dependencies!;
    writeFileSync(
      join(probe, 'package.json'),
      JSON.stringify({
        name: 'probe',
        dependencies: {
          '@solana/spl-token': watcher['@solana/spl-token'],
          'source-map-support': watcher['source-map-support'],
        },
      }),
    );
    mkdirSync(join(probe, 'src'));
    // The largest u64 and one past 2^53: a conversion through a float would lose them.
    writeFileSync(
      join(probe, 'src/main.ts'),
      [
        "import { AccountLayout } from '@solana/spl-token';",
        'const data = Buffer.alloc(AccountLayout.span);',
        'for (const amount of [18446744073709551615n, 9007199254740993n, 0n]) {',
        '  AccountLayout.encode({ ...AccountLayout.decode(data), amount }, data);',
        '  process.stdout.write(`${AccountLayout.decode(data).amount}\\n`);',
        '}',
        '',
      ].join('\n'),
    );
    await compilePackage(probe, ['main'], join(probe, 'dist'));
    const compiled = readFileSync(join(probe, 'dist/main.js'), 'utf8');
    expect(compiled).not.toMatch(/require\("@solana\//);
    const { stdout, stderr } = await run(process.execPath, [join(probe, 'dist/main.js')], {
      cwd: probe,
      env: { PATH: process.env.PATH },
    });
    expect({ stdout, stderr }).toEqual({ stdout: '18446744073709551615\n9007199254740993\n0\n', stderr: '' });
  }, 60_000);
});
