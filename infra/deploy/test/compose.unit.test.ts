import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { basename, join, posix, relative } from 'node:path';
import { deployedServiceNames } from '@gateway/contracts';
import { loadPixAdapterConfig } from '@gateway/pix-adapter/src/config';
import { loadMailCatcherConfig } from '@gateway/mail-catcher/src/config';
import { loadPspSimulatorConfig } from '@gateway/psp-simulator/src/config';
import { readConfig as readLocalnetConfig } from '@gateway/solana-localnet/src/config';
import { SANDBOX_RECEIVING_WALLET } from '@gateway/solana-watcher/src/config';
import { refusedVariables, without } from '@gateway/testkit';
import { amqpUser, grantedUsers } from '../src/config';
import { DEFINITIONS_FILE, DEPLOYED_TOPOLOGY } from '../src/deployed-definitions';
import { processMemoryEnvironment, processNodeFlags } from '@gateway/config';
import { compiledEntries, compiledEntry } from '../tools/compiled-entries';
import {
  MissingVariableError,
  composeEnvironment,
  composeFile,
  composeValidator,
  definitionsStep,
  interpolate,
  interpolations,
  madeUpSecrets,
  madeUpSettings,
  messageServices,
  productionRequired,
  readEnvFile,
  repoRoot,
  runtimeVariables,
  sandboxEnvFile,
  stackServices,
  standIns,
  type ComposeService,
  type Env,
} from './support/deployment';
import {
  commandFile,
  imageName,
  imagePackage,
  probedAddress,
  readDockerfile,
  type ImageStage,
} from './support/dockerfile';
import { observabilityServices } from './support/observability';
import { readManifest } from './support/workspace';

const compose = composeFile();
const dockerfile = readDockerfile();
const processes = [...stackServices, ...standIns];
const infrastructure = ['postgres', 'redis', 'rabbitmq', 'rabbitmq-2', 'rabbitmq-3'];
/** The bundled RabbitMQ cluster's nodes. */
const rabbitmqNodes = ['rabbitmq', 'rabbitmq-2', 'rabbitmq-3'];
/** `docker compose --env-file infra/compose/sandbox.env --profile sandbox up`. */
const sandbox = readEnvFile(sandboxEnvFile);

/**
 * A complete production.env, made up: what the header of docker-compose.yml and docs/deploying.md ask of one (the bundled
 * databases' credentials, the real PSP and RPC, the callback URL, and every variable the file passes through).
 */
function productionEnv(): Env {
  const secrets = madeUpSecrets();
  const settings = madeUpSettings();
  return {
    APP_ENV: 'production',
    POSTGRES_PASSWORD: randomBytes(16).toString('hex'),
    LEDGER_DATABASE_PASSWORD: randomBytes(16).toString('hex'),
    RABBITMQ_USER: 'gateway',
    RABBITMQ_PASSWORD: randomBytes(16).toString('hex'),
    RABBITMQ_ERLANG_COOKIE: randomBytes(32).toString('hex'),
    PSP_BASE_URL: settings.PSP_BASE_URL!,
    CALLBACK_PUBLIC_URL: settings.CALLBACK_PUBLIC_URL!,
    SOLANA_RPC_URL: secrets.SOLANA_RPC_URL!,
    PUBLIC_BASE_URL: settings.PUBLIC_BASE_URL!,
    PIX_KEY: settings.PIX_KEY!,
    MERCHANT_CITY: settings.MERCHANT_CITY!,
    ADMIN_TOKEN: secrets.ADMIN_TOKEN!,
    IDEMPOTENCY_RESPONSE_KEY: secrets.IDEMPOTENCY_RESPONSE_KEY!,
    DASHBOARD_SEAL_KEY: secrets.DASHBOARD_SEAL_KEY!,
    SMTP_URL: secrets.SMTP_URL!,
    DASHBOARD_PUBLIC_URL: settings.DASHBOARD_PUBLIC_URL!,
    MAIL_FROM: settings.MAIL_FROM!,
    PSP_CLIENT_ID: secrets.PSP_CLIENT_ID!,
    PSP_CLIENT_SECRET: secrets.PSP_CLIENT_SECRET!,
    CALLBACK_TOKEN: secrets.CALLBACK_TOKEN!,
    PSP_ACCOUNT_SEALING_KEY: secrets.PSP_ACCOUNT_SEALING_KEY!,
    RECEIVING_WALLET: secrets.RECEIVING_WALLET!,
    REFUND_SIGNER_SECRET_KEY: secrets.REFUND_SIGNER_SECRET_KEY!,
    WEBHOOK_SECRET_KEY: secrets.WEBHOOK_SECRET_KEY!,
  };
}

/**
 * What `docker compose --env-file <shell> up` refuses, by variable: compose itself (a `${VAR:?...}` with nothing to
 * take), or else every process it starts, each by its own config (exit 78 naming the variables).
 */
function refusedBy(shell: Env): string[] {
  try {
    interpolate(JSON.stringify(compose), shell);
  } catch (err) {
    if (err instanceof MissingVariableError) return [err.variable];
    throw err;
  }
  return [
    ...new Set(
      [...stackServices, definitionsStep].flatMap((process) =>
        refusedVariables(() => process.load(composeEnvironment(service(process.name), shell))),
      ),
    ),
  ].sort();
}

/** Every string of a parsed document (keys excluded), with where it is. */
function strings(value: unknown, at = ''): Array<{ at: string; value: string }> {
  if (typeof value === 'string') return [{ at, value }];
  if (Array.isArray(value)) return value.flatMap((item, i) => strings(item, `${at}[${i}]`));
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([key, item]) => strings(item, `${at}.${key}`));
  return [];
}

function service(name: string): ComposeService {
  const found = compose.services[name];
  if (!found) throw new Error(`docker-compose.yml has no service ${name}`);
  return found;
}

/** The port a health check command connects to (`fetch('http://127.0.0.1:PORT/...')`, `connect(PORT, ...)`). */
function probedPort(test: string[] | string): { port: number; path?: string } {
  const command = Array.isArray(test) ? test.join(' ') : test;
  const http = /http:\/\/127\.0\.0\.1:(\d+)(\/[a-z]+)/.exec(command);
  if (http) return { port: Number(http[1]), path: http[2] };
  const tcp = /connect\((\d+),\s*'127\.0\.0\.1'\)/.exec(command);
  if (tcp) return { port: Number(tcp[1]) };
  throw new Error(`no probed port in ${command}`);
}

describe('docker-compose.yml', () => {
  test('is valid by the vendored compose specification, as written and once interpolated (sandbox, production)', () => {
    const validate = composeValidator();
    const interpolated = [sandbox, productionEnv()].map(
      (shell) => JSON.parse(interpolate(JSON.stringify(compose), shell)) as unknown,
    );
    for (const document of [compose, ...interpolated]) {
      const valid = validate(document);
      expect(validate.errors ?? []).toEqual([]);
      expect(valid).toBe(true);
    }
  });

  test('runs exactly the services of the one list (contracts `deployedServiceNames`), each under its own name', () => {
    const running = Object.entries(compose.services)
      .filter(([, { build }]) => build?.target !== undefined)
      .map(([name, { build }]) => ({
        name,
        target: build!.target!,
        runs: imagePackage(dockerfile.stage(build!.target!)),
      }))
      .filter(({ runs }) => runs?.startsWith('services/'));
    expect(running.sort((a, b) => a.name.localeCompare(b.name))).toEqual(
      [...deployedServiceNames].sort().map((name) => ({ name, target: name, runs: `services/${name}` })),
    );
    expect(stackServices.map(({ name }) => name)).toEqual([...deployedServiceNames]);
  });

  test("builds every process of the stack as its own image, from its Dockerfile target, which runs the process's entry", () => {
    for (const { name, entry } of [...processes, definitionsStep]) {
      const { build, image, command, entrypoint } = service(name);
      expect({ name, build, image }).toEqual({
        name,
        build: { context: '.', dockerfile: 'infra/docker/Dockerfile', target: name },
        image: imageName(name),
      });
      // The image's own command runs: nothing here replaces it.
      expect({ name, command, entrypoint }).toEqual({ name, command: undefined, entrypoint: undefined });
      const target = dockerfile.stage(name);
      expect({ name, runs: commandFile(target, target.cmd?.words) }).toEqual({ name, runs: entry });
      expect(existsSync(join(repoRoot, entry))).toBe(true);
    }
  });

  test('every container of ours runs on a read-only root file system, with a tmpfs on /tmp (as in Kubernetes)', () => {
    for (const { name } of [...processes, definitionsStep]) {
      const { read_only, tmpfs } = service(name);
      expect({ name, read_only, tmpfs }).toEqual({ name, read_only: true, tmpfs: ['/tmp'] });
    }
  });

  test('the sandbox stand-ins, and only they, are in the `sandbox` profile, the observability tools in theirs; what needs them starts without them', () => {
    const profileOf = (name: string) => {
      if (standIns.some((standIn) => standIn.name === name)) return ['sandbox'];
      return observabilityServices.includes(name) ? ['observability'] : undefined;
    };
    for (const [name, { profiles }] of Object.entries(compose.services))
      expect({ name, profiles }).toEqual({ name, profiles: profileOf(name) });
    for (const [name, { depends_on }] of Object.entries(compose.services))
      for (const [dependency, { required }] of Object.entries(depends_on ?? {})) {
        expect(Object.keys(compose.services)).toContain(dependency);
        if (standIns.some((standIn) => standIn.name === dependency))
          expect({ name, dependency, required }).toEqual({ name, dependency, required: false });
      }
  });

  test('every health check probes, at a health path, the port its process listens on by its own config', () => {
    for (const process of processes) {
      const env = composeEnvironment(service(process.name), sandbox);
      const test = service(process.name).healthcheck?.test;
      expect({ name: process.name, test: Boolean(test) }).toEqual({ name: process.name, test: true });
      const { port, path } = probedPort(test!);
      expect({ name: process.name, port }).toEqual({ name: process.name, port: process.healthPort(env) });
      if (path) expect(['/healthz', '/readyz']).toContain(path);
    }
  });

  test("the deploy steps' image holds the definitions file where the compiled steps look for it", () => {
    const steps = dockerfile.stage(definitionsStep.name);
    const file = relative(repoRoot, DEFINITIONS_FILE);
    // DEFINITIONS_FILE is the same path from the package's src/ (here) as from its dist/ (in the image).
    const sought = posix.resolve(
      steps.workdir!,
      'dist',
      relative(join(repoRoot, 'infra/deploy/src'), DEFINITIONS_FILE),
    );
    expect(sought).toBe(posix.join('/app', file));
    expect(steps.copies).toContainEqual({ from: undefined, sources: [file], destination: sought });
    expect(existsSync(DEFINITIONS_FILE)).toBe(true);
  });

  test('health checks run what their image has: node in ours (it has no curl), the tools of the official ones', () => {
    for (const process of processes) {
      const test = service(process.name).healthcheck!.test as string[];
      expect(test.slice(0, 3)).toEqual(['CMD', 'node', '-e']);
    }
    for (const name of infrastructure) expect(service(name).healthcheck?.test).toBeDefined();
  });

  test('long-running services restart unless stopped; the one-shot definitions step does not', () => {
    for (const [name, { restart }] of Object.entries(compose.services))
      expect({ name, restart }).toEqual({
        name,
        restart: name === definitionsStep.name ? 'no' : 'unless-stopped',
      });
  });

  test('every service starts once the broker has its definitions, and the gateway once every service is healthy', () => {
    for (const { name } of messageServices)
      expect(service(name).depends_on).toMatchObject({
        postgres: { condition: 'service_healthy' },
        ...Object.fromEntries(rabbitmqNodes.map((node) => [node, { condition: 'service_healthy' }])),
        [definitionsStep.name]: { condition: 'service_completed_successfully' },
      });
    for (const { name } of messageServices.filter((s) => s.name !== 'api-gateway'))
      expect(service('api-gateway').depends_on?.[name]).toEqual({ condition: 'service_healthy' });
    // The dashboard owns no queue: it waits for its database, its sessions' Redis and the gateway it acts through.
    expect(service('dashboard').depends_on).toEqual({
      postgres: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
      'api-gateway': { condition: 'service_healthy' },
      // In the sandbox, its mail catcher; without it (production) it mails its own relay.
      'mail-catcher': { condition: 'service_healthy', required: false },
    });
  });

  test('every variable given to a process is one its config reads', () => {
    for (const process of [...processes, definitionsStep]) {
      const unread = Object.keys(service(process.name).environment ?? {}).filter(
        (name) => !process.variables.includes(name) && !runtimeVariables.includes(name),
      );
      expect({ name: process.name, unread }).toEqual({ name: process.name, unread: [] });
    }
  });

  test('the sandbox (its env file and the profile) loads every process config, in sandbox', () => {
    for (const process of [...processes, definitionsStep]) {
      const env = composeEnvironment(service(process.name), sandbox);
      expect(() => process.load(env)).not.toThrow();
    }
    for (const { name } of stackServices)
      expect(composeEnvironment(service(name), sandbox).APP_ENV).toBe('sandbox');
  });

  test('the sandbox configures every service as before: the stand-ins, the development credentials', () => {
    const env = (name: string) => composeEnvironment(service(name), sandbox);
    for (const { name } of stackServices)
      expect({ name, ...env(name) }).toMatchObject({
        name,
        APP_ENV: 'sandbox',
        LOG_LEVEL: 'info',
        // The ledger serves as a role that cannot change the books and migrates as the administrator.
        ...(name === 'ledger'
          ? {
              DATABASE_URL: 'postgres://ledger_runtime:ledger_runtime@postgres:5432/gateway',
              MIGRATION_DATABASE_URL: 'postgres://postgres:postgres@postgres:5432/gateway',
            }
          : { DATABASE_URL: 'postgres://postgres:postgres@postgres:5432/gateway' }),
        ...(messageServices.some((s) => s.name === name)
          ? {
              AMQP_URLS: rabbitmqNodes.map((node) => `amqp://guest:guest@${node}:5672/gateway`).join(','),
            }
          : {}),
      });
    // The dashboard reaches the gateway by its service name, on the port the gateway listens on.
    expect(env('dashboard').GATEWAY_URL).toBe(`http://api-gateway:${env('api-gateway').PORT}`);
    expect(env('postgres')).toEqual({ POSTGRES_PASSWORD: 'postgres', POSTGRES_DB: 'gateway' });
    for (const node of rabbitmqNodes)
      expect(env(node)).toEqual({
        RABBITMQ_DEFAULT_USER: 'guest',
        RABBITMQ_DEFAULT_PASS: 'guest',
        RABBITMQ_ERLANG_COOKIE: sandbox.RABBITMQ_ERLANG_COOKIE,
      });
    const step = env(definitionsStep.name);
    expect(step).toMatchObject({
      RABBITMQ_MANAGEMENT_USERNAME: 'guest',
      RABBITMQ_MANAGEMENT_PASSWORD: 'guest',
    });
    expect(grantedUsers(definitionsStep.load(step))).toEqual(['guest']);

    // The rails point at the stand-ins, by service name and the port each listens on by its own config.
    const adapter = env('pix-adapter');
    expect(adapter).toMatchObject({
      PSP_BASE_URL: 'http://psp-simulator:4010',
      CALLBACK_PUBLIC_URL: 'http://pix-adapter:3101',
    });
    const simulatorPort = loadPspSimulatorConfig(env('psp-simulator')).PSP_SIMULATOR_PORT;
    expect(new URL(adapter.PSP_BASE_URL!).host).toBe(`psp-simulator:${simulatorPort}`);
    const callbackPort = loadPixAdapterConfig(adapter).CALLBACK_PORT;
    expect(new URL(adapter.CALLBACK_PUBLIC_URL!).host).toBe(`pix-adapter:${callbackPort}`);
    // The dashboard mails through the mail catcher, on the SMTP port it listens on by its own config.
    const catcher = loadMailCatcherConfig(env('mail-catcher'));
    expect(env('dashboard').SMTP_URL).toBe(`smtp://mail-catcher:${catcher.MAIL_CATCHER_SMTP_PORT}`);
    expect(catcher.MAIL_CATCHER_HOST).toBe('0.0.0.0');
    const watcher = env('solana-watcher');
    expect(watcher.SOLANA_RPC_URL).toBe('http://solana-localnet:8899');
    expect(new URL(watcher.SOLANA_RPC_URL!).host).toBe(
      `solana-localnet:${readLocalnetConfig(env('solana-localnet')).port}`,
    );
  });

  test('the sandbox env file sets only variables this file reads', () => {
    const read = new Set([
      ...strings(compose).flatMap(({ value }) => interpolations(value).map(({ name }) => name)),
      ...Object.values(compose.services).flatMap((s) =>
        Object.entries(s.environment ?? {})
          .filter(([, value]) => value === null)
          .map(([name]) => name),
      ),
    ]);
    expect(Object.keys(sandbox).filter((name) => !read.has(name))).toEqual([]);
  });

  test('has no development default: the only defaults are APP_ENV=production and LOG_LEVEL=info', () => {
    const defaults = strings(compose).flatMap(({ at, value }) =>
      interpolations(value)
        .filter(({ operator }) => operator === ':-' || operator === '-')
        .map(({ name, argument }) => ({ at, name, argument })),
    );
    for (const { at, name, argument } of defaults)
      expect({ at, name, argument }).toEqual({
        at,
        name,
        argument: ({ APP_ENV: 'production', LOG_LEVEL: 'info' } as Env)[name],
      });
  });

  test('production without the sandbox file: a complete env file starts every process, in production', () => {
    const shell = productionEnv();
    expect(refusedBy(shell)).toEqual([]);
    for (const { name } of stackServices)
      expect(composeEnvironment(service(name), shell).APP_ENV).toBe('production');
    // Nothing set at all: compose refuses before anything starts.
    expect(() => interpolate(JSON.stringify(compose), {})).toThrow(MissingVariableError);
  });

  test('production: an env file that forgets any one variable is refused, never filled in with a default', () => {
    const shell = productionEnv();
    for (const name of Object.keys(shell).filter((name) => name !== 'APP_ENV'))
      expect({ forgotten: name, refused: refusedBy(without(shell, name)) }).toEqual({
        forgotten: name,
        refused: expect.arrayContaining([name]),
      });
    // APP_ENV forgotten: production, the services' own default, never the sandbox.
    for (const { name } of stackServices)
      expect(composeEnvironment(service(name), without(shell, 'APP_ENV')).APP_ENV).toBe('production');
  });

  test('in production every variable a service requires is set here or passed through from the environment', () => {
    for (const process of stackServices) {
      const given = Object.keys(service(process.name).environment ?? {});
      // The cluster's nodes (AMQP_URLS) stand for the broker's one address.
      const missing = productionRequired(process).filter(
        (name) => !given.includes(name) && !(name === 'AMQP_URL' && given.includes('AMQP_URLS')),
      );
      expect({ name: process.name, missing }).toEqual({ name: process.name, missing: [] });
    }
  });

  test('the local chain funds the wallet the watcher uses in the sandbox', () => {
    expect(composeEnvironment(service('solana-localnet'), sandbox).SOLANA_LOCALNET_RECEIVING_WALLET).toBe(
      SANDBOX_RECEIVING_WALLET,
    );
  });

  test('the services use the vhost and names the RabbitMQ definitions declare, and the step grants their user', () => {
    for (const shell of [sandbox, productionEnv()]) {
      for (const { name } of messageServices) {
        const env = composeEnvironment(service(name), shell);
        // One address per node of the cluster, each with the vhost of the definitions.
        const urls = env.AMQP_URLS!.split(',');
        expect(urls.map((url) => new URL(url).hostname)).toEqual(rabbitmqNodes);
        for (const url of urls) expect(new URL(url).pathname).toBe(`/${DEPLOYED_TOPOLOGY.vhost}`);
        expect(env.AMQP_PREFIX ?? '').toBe(DEPLOYED_TOPOLOGY.prefix);
      }
      const servicesUrls = composeEnvironment(service('payment'), shell).AMQP_URLS!;
      const step = composeEnvironment(service(definitionsStep.name), shell);
      // The very URLs the services use: the step lets their user into their vhost, once the three nodes run.
      expect(step.AMQP_URLS).toBe(servicesUrls);
      expect(grantedUsers(definitionsStep.load(step))).toEqual([amqpUser(servicesUrls.split(',')[0]!)]);
      expect(definitionsStep.load(step).RABBITMQ_CLUSTER_NODES).toBe(rabbitmqNodes.length);
    }
  });
});

describe('infra/docker/Dockerfile: one lean image per process', () => {
  const targets = dockerfile.targets;
  /** The long-running processes, each with its target. */
  const served = processes.map((process) => ({ process, target: dockerfile.stage(process.name) }));
  /** A process's config as its image alone gives it (in the sandbox, whose defaults need no secret). */
  const imageConfigEnv = (target: ImageStage, env = target.env): Env => ({ APP_ENV: 'sandbox', ...env });

  test("passes the Dockerfile language server's checks (instructions, flags, durations, arguments)", () => {
    expect(dockerfile.problems).toEqual([]);
  });

  test('has one target per process and one for the deploy steps, each named after it, and no other', () => {
    expect(targets.map(({ name }) => name).sort()).toEqual(
      [...processes, definitionsStep].map(({ name }) => name).sort(),
    );
  });

  test("every image is node's slim image, the build's own node, running as the user node in production", () => {
    const build = dockerfile.stage('build');
    expect(build.baseImage).toMatch(/^node:20\.\d+-bookworm-slim$/);
    for (const target of targets)
      expect({
        target: target.name,
        baseImage: target.baseImage,
        user: target.user,
        NODE_ENV: target.env.NODE_ENV,
        NODE_OPTIONS: target.env.NODE_OPTIONS,
      }).toEqual({
        target: target.name,
        baseImage: build.baseImage,
        // The official node images' unprivileged user, uid 1000: the manifests' runAsUser.
        user: 'node',
        NODE_ENV: 'production',
        // No NODE_OPTIONS (it would reach the health checks' node too): the V8 heap settings are on the command.
        NODE_OPTIONS: undefined,
      });
  });

  test('every image runs node itself as its process (exec form: PID 1, sent the SIGTERM), on a file the build produces', () => {
    for (const target of targets) {
      const folder = imagePackage(target)!;
      expect({ target: target.name, entrypoint: target.entrypoint, form: target.cmd?.form }).toEqual({
        target: target.name,
        entrypoint: undefined,
        form: 'exec',
      });
      expect(target.stopSignal ?? 'SIGTERM').toBe('SIGTERM');
      const file = commandFile(target, target.cmd!.words);
      const entry = (compiledEntries[folder] ?? []).find((name) => compiledEntry(folder, name) === file);
      expect({ target: target.name, file, compiled: entry !== undefined }).toEqual({
        target: target.name,
        file: expect.any(String),
        compiled: true,
      });
    }
  });

  test("every long-running process's image runs it with the launcher's V8 heap settings; a one-shot with node's", () => {
    for (const target of targets) {
      const words = target.cmd!.words;
      const oneShot = target.name === 'rabbitmq-definitions';
      expect({ target: target.name, options: words.slice(1, -1) }).toEqual({
        target: target.name,
        options: oneShot ? [] : [...processNodeFlags],
      });
    }
  });

  test("every image's environment holds the launcher's C library settings", () => {
    for (const target of targets) {
      expect({ target: target.name, env: target.env }).toEqual({
        target: target.name,
        env: expect.objectContaining(processMemoryEnvironment),
      });
    }
  });

  test("every image holds its own package alone, at its repository path: the build stage's install of it", () => {
    const build = dockerfile.stage('build');
    const installs = build.runs.find((run) => / --filter "\.\/\$dir"/.test(run)) ?? '';
    // Each compiled package, installed from the lockfile alone (frozen, offline, production dependencies only) in a
    // copy of the workspace's manifests, its compiled files and its bill of materials beside it;
    // compiled-entries.int.test.ts runs these very commands.
    const loop = /for dir in ([^;]+); do/.exec(installs)?.[1]?.split(/\s+/) ?? [];
    expect(installs).toContain('pnpm install --frozen-lockfile --offline --prod --filter "./$dir"');
    expect(installs).not.toMatch(/ deploy /);
    expect(installs).toContain('cp -R "$dir/dist" "/out/$name/app/$dir/dist"');
    expect(installs).toContain('cp "/app/sbom/$name.cdx.json" "/out/$name/app/sbom/"');
    expect(build.runs.some((run) => run.includes('pnpm sbom /app/sbom'))).toBe(true);
    for (const target of targets) {
      const folder = imagePackage(target)!;
      expect({ target: target.name, compiled: Object.keys(compiledEntries).includes(folder) }).toEqual({
        target: target.name,
        compiled: true,
      });
      expect(loop.some((glob) => glob === `${posix.dirname(folder)}/*`)).toBe(true);
      expect({
        target: target.name,
        fromBuild: target.copies.filter((copy) => copy.from !== undefined),
      }).toEqual({
        target: target.name,
        fromBuild: [{ from: 'build', sources: [`/out/${basename(folder)}`], destination: '/' }],
      });
    }
  });

  test('every package an image installs lists each production dependency once (one also among its devDependencies is ambiguous: pnpm deploy drops it)', () => {
    const twice = targets.flatMap((target) => {
      const folder = imagePackage(target)!;
      const { dependencies = {}, devDependencies = {} } = readManifest(folder);
      const both = Object.keys(dependencies).filter((name) => name in devDependencies);
      return both.length > 0 ? [{ package: folder, both }] : [];
    });
    expect(twice).toEqual([]);
  });

  test('every long-running image checks its health where its process serves it, on whatever port it is given', () => {
    for (const { process, target } of served) {
      const check = target.healthcheck;
      expect({ target: target.name, declared: check !== undefined && check !== 'NONE' }).toEqual({
        target: target.name,
        declared: true,
      });
      if (check === undefined || check === 'NONE') continue;
      expect(Object.keys(check.options).sort()).toEqual(['interval', 'retries', 'start-period', 'timeout']);
      const port = process.healthPort(imageConfigEnv(target));
      const probe = probedAddress(check.test, target.env);
      expect({ target: target.name, probe }).toEqual({
        target: target.name,
        probe: expect.objectContaining({ host: '127.0.0.1', port }),
      });
      // The services serve /healthz (the gateway's /readyz would fail for one back-end's outage); the stand-ins, none.
      if (stackServices.includes(process)) expect(probe).toMatchObject({ kind: 'http', path: '/healthz' });
      // The image sets the variable its process listens by; given another port, the check follows it.
      const variable = Object.keys(target.env).find((name) => target.env[name] === String(port));
      expect({ target: target.name, variable: Boolean(variable) }).toEqual({
        target: target.name,
        variable: true,
      });
      const moved = { ...target.env, [variable!]: String(port + 1) };
      expect(process.healthPort(imageConfigEnv(target, moved))).toBe(port + 1);
      expect(probedAddress(check.test, moved).port).toBe(port + 1);
    }
    // The deploy steps are one-shots, listening on nothing.
    expect(dockerfile.stage(definitionsStep.name).healthcheck).toBe('NONE');
  });
});
