import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_DATABASE_POOL_SIZE, launcherMetricsPortVariable } from '@gateway/config';
import { serviceNames, type ServiceName } from '@gateway/contracts';
import {
  ensureStackCompiled,
  isolatedEnvironment,
  type IsolatedEnvironment,
  waitFor,
} from '@gateway/testkit-core';
import { deleteBrokerNames } from './broker-cleanup';

const root = join(__dirname, '../../..');

/** A port the OS says is free now (for processes that must be told their port up front). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** The services without an HTTP API: each serves /metrics on the port the launcher's `<NAME>_METRICS_PORT` sets. */
export type MetricsService = Exclude<ServiceName, 'api-gateway'>;
export const metricsServices = serviceNames.filter((name): name is MetricsService => name !== 'api-gateway');

export interface RunningStack {
  env: IsolatedEnvironment;
  gatewayUrl: string;
  /** The merchant dashboard the launcher runs (its sign-up open: the stack is a sandbox). */
  dashboardUrl: string;
  pspUrl: string;
  /** The PIX adapter's callback listener (`/webhook`, `/webhook/accounts/{id}`), as a PSP calls it. */
  callbackUrl: string;
  solanaRpcUrl: string;
  /** The sandbox mail catcher's web inbox and REST API (`GET /email`): every mail the dashboard sent. */
  mailCatcherUrl: string;
  /** The mail catcher's SMTP address, as the dashboard sends to it (for a dashboard command a test runs). */
  mailCatcherSmtpUrl: string;
  /** Each service's metrics listener, e.g. `http://127.0.0.1:40123`. */
  metricsUrls: Record<MetricsService, string>;
  adminToken: string;
  /** Everything the processes printed, for a failing test's diagnosis. */
  logs: string[];
  /** The pid of a process the launcher runs now (`payment`, `api-gateway`, `psp-simulator`...). */
  pidOf(name: string): number;
  /** How the process `pid` ended, as the launcher reported it: its exit code (`0`) or the signal that killed it. */
  exitOf(pid: number): string | undefined;
  stop(): Promise<void>;
}

/** A message as the services' log lines name it (a stop's, a redelivery's, a retry's). */
export interface LoggedMessage {
  queue: string;
  message_id: string;
}

/**
 * The JSON lines the stack's processes logged so far. A line still being written, or cut by the other stream's output,
 * is left out.
 */
export function jsonLogLines(stack: RunningStack): Array<Record<string, unknown>> {
  return stack.logs
    .join('')
    .split('\n')
    .slice(0, -1)
    .map((line) => line.slice(line.indexOf('| ') + 2))
    .filter((line) => line.startsWith('{'))
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}

export interface StackOptions {
  /** The URL the services get for the stack's database (e.g. through a proxy), from its direct URL. */
  databaseUrlForServices?: (directUrl: string) => string;
  /** The URL the PIX adapter gets for the PSP simulator (e.g. through a proxy), from its direct URL. */
  pspUrlForServices?: (directUrl: string) => string;
  /**
   * The checkout whose launcher (and so whose services) runs the stack: this one unless set (the rolling-upgrade test
   * starts the last released commit's, checked out from git).
   */
  root?: string;
}

/** How long a stopping launcher gets before its whole process group is killed. */
const STOP_TIMEOUT_MS = 30_000;

/**
 * The stack's SHUTDOWN_TIMEOUT_MS (unless a test sets its own): each process's stop bound, within STOP_TIMEOUT_MS with
 * the launcher's margin, so a stop that hangs is reported by the processes rather than ended by the group kill. Past
 * the default webhook timeout (10 s), which the dispatcher's stop must outlast.
 */
export const STACK_SHUTDOWN_TIMEOUT_MS = 15_000;

/**
 * The whole stack started by the launcher `npm start` runs (scripts/stack.ts), on a private database, broker prefix,
 * Redis prefix and free ports: for end-to-end tests through the public HTTP API. `extraEnv` goes to the launcher,
 * which hands each variable to the processes whose config reads it.
 */
export async function startStack(
  extraEnv: Record<string, string> = {},
  options: StackOptions = {},
): Promise<RunningStack> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startStackOnce(extraEnv, options);
    } catch (err) {
      // A port found free can be taken by another test before the process binds it: start again on new ports.
      if (attempt >= PORT_RACE_ATTEMPTS || !(err instanceof StackStartError && err.portTaken)) throw err;
    }
  }
}

/** A stack that did not become ready; `portTaken` when a process of it found one of its ports taken. */
class StackStartError extends Error {
  constructor(
    message: string,
    readonly portTaken: boolean,
  ) {
    super(message);
  }
}

/**
 * Each process's database pool in a test stack. A stack runs about ten processes with a pool each, and the other jest
 * worker may run a stack or several service replicas at the same time, all against one PostgreSQL whose default
 * max_connections is 100: with the production pool (10) a loaded stack alone held 69 connections, and CI once ran out
 * ("sorry, too many clients already"). A test that needs the production pool passes DATABASE_POOL_SIZE itself.
 */
export const TEST_STACK_POOL_SIZE = 4;

/**
 * The pool a bench's stack runs with: the one asked for, else the production default for a measured run (its figures
 * are the production configuration's), else the test default for a smoke run among the other tests.
 */
export function benchDatabasePool(run: { smoke: boolean; pool?: string }): { DATABASE_POOL_SIZE?: string } {
  if (run.pool !== undefined) return { DATABASE_POOL_SIZE: run.pool };
  return run.smoke ? {} : { DATABASE_POOL_SIZE: String(DEFAULT_DATABASE_POOL_SIZE) };
}

/** How often a stack start is tried when a port it was given was taken meanwhile. */
const PORT_RACE_ATTEMPTS = 3;

async function startStackOnce(
  extraEnv: Record<string, string>,
  options: StackOptions,
): Promise<RunningStack> {
  // A release checked out elsewhere (options.root) was built where it was checked out.
  if (!options.root && (extraEnv.STACK_BUILD ?? 'compiled') === 'compiled') ensureStackCompiled();
  const env = await isolatedEnvironment('e2e');
  const runDir = mkdtempSync(join(tmpdir(), 'stack-'));
  const processTableFile = join(runDir, 'processes.json');
  const [gatewayPort, dashboardPort, pspPort, rpcPort, callbackPort, smtpPort, mailWebPort, ...metricsPorts] =
    await Promise.all(Array.from({ length: 7 + metricsServices.length }, freePort));
  const adminToken = 'e2e-admin-token-of-the-launched-stack';
  const metricsUrls = Object.fromEntries(
    metricsServices.map((service, i) => [service, `http://127.0.0.1:${metricsPorts[i]}`]),
  ) as Record<MetricsService, string>;
  const launcherEnv: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    ...env.config,
    DATABASE_URL: options.databaseUrlForServices?.(env.database.url) ?? env.database.url,
    APP_ENV: 'sandbox',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
    ADMIN_TOKEN: adminToken,
    PORT: String(gatewayPort),
    DASHBOARD_PORT: String(dashboardPort),
    PSP_SIMULATOR_PORT: String(pspPort),
    SOLANA_LOCALNET_PORT: String(rpcPort),
    CALLBACK_PORT: String(callbackPort),
    MAIL_CATCHER_SMTP_PORT: String(smtpPort),
    MAIL_CATCHER_WEB_PORT: String(mailWebPort),
    ...Object.fromEntries(
      metricsServices.map((service, i) => [launcherMetricsPortVariable(service), String(metricsPorts[i])]),
    ),
    DEMO_BUSINESS: 'false',
    // What ships: the files `pnpm build` writes (built by this run before its first stack: ensureStackCompiled).
    STACK_BUILD: 'compiled',
    // The processes' lines as they write them: tests parse them (jsonLogLines).
    LOG_FORMAT: 'json',
    POLL_INTERVAL_MS: '300',
    DELIVERY_POLL_INTERVAL_MS: '200',
    RATE_LIMIT_PER_MINUTE: '100000',
    PROCESS_TABLE_FILE: processTableFile,
    SHUTDOWN_TIMEOUT_MS: String(STACK_SHUTDOWN_TIMEOUT_MS),
    DATABASE_POOL_SIZE: String(TEST_STACK_POOL_SIZE),
    ...(options.pspUrlForServices
      ? { PSP_BASE_URL: options.pspUrlForServices(`http://127.0.0.1:${pspPort}`) }
      : {}),
    ...extraEnv,
  };
  // A cluster's addresses (AMQP_URLS) replace the one broker address of the test environment: a service refuses both.
  if (extraEnv.AMQP_URLS) delete launcherEnv.AMQP_URL;
  const logs: string[] = [];
  // Its own process group, so a launcher that does not stop in time is killed with every process it started.
  const launcherRoot = options.root ?? root;
  // As `npm start` runs it: node itself with tsx as a loader, so the stop's signal reaches the launcher (tsx's command
  // line would kill it 60 ms after passing the signal on, before it had stopped anything).
  const launcher = spawn(process.execPath, ['--import', 'tsx', join(launcherRoot, 'scripts/stack.ts')], {
    cwd: launcherRoot,
    env: launcherEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const record = (chunk: Buffer) => logs.push(chunk.toString());
  launcher.stdout.on('data', record);
  launcher.stderr.on('data', record);
  const exited = new Promise<void>((resolve) => launcher.once('exit', () => resolve()));
  const hasExited = () => launcher.exitCode !== null || launcher.signalCode !== null;

  const stop = async () => {
    if (!hasExited()) {
      launcher.kill('SIGTERM');
      const timer = setTimeout(() => killGroup(launcher.pid), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
    // Whatever is left of the group (nothing, after a clean stop).
    killGroup(launcher.pid);
    await env.database.drop().catch(() => undefined);
    await deleteBrokerNames(env.config.AMQP_PREFIX).catch(() => undefined);
    rmSync(runDir, { recursive: true, force: true });
  };
  const pidOf = (name: string): number => {
    const pid = (JSON.parse(readFileSync(processTableFile, 'utf8')) as Record<string, number | undefined>)[
      name
    ];
    if (pid === undefined) throw new Error(`the launcher runs no process named ${name}`);
    return pid;
  };
  const exitOf = (pid: number): string | undefined =>
    new RegExp(`^\\S+ \\(pid ${pid}\\) exited \\((\\w+)\\)`, 'm').exec(logs.join(''))?.[1];
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  const dashboardUrl = `http://127.0.0.1:${dashboardPort}`;
  const ready = async (url: string) => (await fetch(url).catch(() => undefined))?.ok === true;
  try {
    const outcome = await waitFor(
      async () =>
        hasExited()
          ? 'exited'
          : (await ready(`${gatewayUrl}/readyz`)) && (await ready(`${dashboardUrl}/readyz`)) && 'ready',
      { timeoutMs: 90_000, intervalMs: 500, what: 'the stack to be ready' },
    );
    if (outcome === 'exited')
      throw new Error(`the launcher exited (${launcher.exitCode ?? launcher.signalCode})`);
  } catch (err) {
    await stop();
    const output = logs.join('');
    // The whole output decides a retry: the process that lost its port logs it before every other one's shutdown.
    throw new StackStartError(
      `${String(err)}\n${output.split('\n').slice(-40).join('\n')}`,
      output.includes('EADDRINUSE'),
    );
  }
  return {
    env,
    gatewayUrl,
    dashboardUrl,
    pspUrl: `http://127.0.0.1:${pspPort}`,
    callbackUrl: `http://127.0.0.1:${callbackPort}`,
    solanaRpcUrl: `http://127.0.0.1:${rpcPort}`,
    mailCatcherUrl: `http://127.0.0.1:${mailWebPort}`,
    mailCatcherSmtpUrl: `smtp://127.0.0.1:${smtpPort}`,
    metricsUrls,
    adminToken,
    logs,
    pidOf,
    exitOf,
    stop,
  };
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: the group is gone already.
  }
}
