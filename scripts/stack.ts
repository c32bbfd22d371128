/**
 * Local launcher: runs every service of the stack as its own process in this terminal, with prefixed logs. In sandbox
 * it also runs the PSP simulator and the local Solana chain. Ctrl-C stops everything gracefully.
 *
 * Every process gets exactly the variables its own config reads (from this environment, plus what the launcher
 * derives for it: its metrics port, the stand-ins' URLs), on top of the environment no process reads (PATH, HOME...).
 * End-to-end tests start the stack through this file too (packages/testkit startStack).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { prettyFactory } from 'pino-pretty';
import {
  ConfigError,
  Joi,
  commonEnv,
  launcherMetricsPortVariable,
  loadConfig,
  variableNames,
} from '../packages/config/src';
import { compiledEntry } from '../infra/deploy/tools/compiled-entries';
import { longRunningNode } from '../packages/config/src/node-flags';
import { serviceNames, type ServiceName } from '../packages/contracts/src';
import { readEnvironment as readCliEnvironment } from '../packages/cli/src/config';
import { ensureListenTls } from '../packages/cli/src/listen-tls';
import {
  loadPspSimulatorConfig,
  pspSimulatorSchema,
  pspSimulatorVariables,
} from '../infra/psp-simulator/src/config';
import {
  readConfig as loadSolanaLocalnetConfig,
  solanaLocalnetSchema,
  solanaLocalnetVariables,
} from '../infra/solana-localnet/src/config';
import {
  apiGatewaySchema,
  apiGatewayVariables,
  loadApiGatewayConfig,
} from '../services/api-gateway/src/config';
import { checkoutVariables, loadCheckoutConfig } from '../services/checkout/src/config';
import { customerVariables, loadCustomerConfig } from '../services/customer/src/config';
import {
  dashboardConfigSchema,
  dashboardVariables,
  loadDashboardConfig,
} from '../services/dashboard/src/config';
import { ledgerVariables, loadLedgerConfig } from '../services/ledger/src/config';
import {
  loadMailCatcherConfig,
  mailCatcherSchema,
  mailCatcherVariables,
} from '../infra/mail-catcher/src/config';
import { loadPaymentConfig, paymentVariables } from '../services/payment/src/config';
import {
  DEFAULT_CALLBACK_PORT,
  loadPixAdapterConfig,
  pixAdapterVariables,
} from '../services/pix-adapter/src/config';
import {
  SANDBOX_RECEIVING_WALLET,
  loadSolanaWatcherConfig,
  solanaWatcherVariables,
} from '../services/solana-watcher/src/config';
import {
  loadWebhookDispatcherConfig,
  webhookDispatcherVariables,
} from '../services/webhook-dispatcher/src/config';

const root = join(__dirname, '..');

/**
 * The launcher's own settings. A variable it shares with a process (a port it derives URLs from, the admin token it
 * prints) is checked by that process's own rule, so a value one accepts is never one the other refuses.
 */
interface LauncherSettings {
  APP_ENV: 'sandbox' | 'production';
  PORT: number;
  DASHBOARD_PORT: number;
  PSP_SIMULATOR_PORT: number;
  SOLANA_LOCALNET_PORT: number;
  /** The sandbox mail catcher's SMTP port (the dashboard sends there) and its web inbox's. */
  MAIL_CATCHER_SMTP_PORT: number;
  MAIL_CATCHER_WEB_PORT: number;
  /** Each service's metrics port: PAYMENT_METRICS_PORT, PIX_ADAPTER_METRICS_PORT... */
  [metricsPort: `${string}_METRICS_PORT`]: number;
  ADMIN_TOKEN: string;
  /** Sandbox: create (once) and print a demo business; tests turn it off. */
  DEMO_BUSINESS: boolean;
  /** When set, a process that exits on its own is started again after this delay instead of stopping the stack. */
  RESTART_EXITED_AFTER_MS?: number;
  /** When set, the launcher keeps `{ "<process name>": <pid> }` of the running processes in this JSON file. */
  PROCESS_TABLE_FILE?: string;
  /** Extra replicas of back-end services, e.g. `payment=2,pix-adapter=2`: replica 2 is named `payment#2`. */
  STACK_REPLICAS?: string;
  /** Every service's stop bound: on Ctrl-C a process still running a few seconds past it is killed. */
  SHUTDOWN_TIMEOUT_MS: number;
  /**
   * How the processes' log lines are shown here: `pretty` (for a person at a terminal: time, level and message on one
   * line, the rest indented below) or `json`, the lines as the processes write them (what production collectors read,
   * and what tests parse). The processes themselves always log JSON. Unset: see logFormat.
   */
  LOG_FORMAT?: 'pretty' | 'json';
  /**
   * What the processes run: `source`, the TypeScript through the tsx loader (no build step, for development), or
   * `compiled`, the files `pnpm build` writes (`<package>/dist/main.js`, run by node with no loader: what the images
   * ship, and what the test stacks run).
   */
  STACK_BUILD: 'source' | 'compiled';
  /**
   * Where the demo business (ids, API key) and this start's gateway URL are remembered, for the next start and for the
   * README's commands in another terminal (default `.run/demo-business.json`, ignored by git).
   */
  DEMO_BUSINESS_FILE: string;
}

type Worker = Exclude<ServiceName, 'api-gateway'>;
/** Every service but the gateway: each serves its metrics on a port of its own and scales by replicas here. */
const workers = serviceNames.filter((name): name is Worker => name !== 'api-gateway');
/** Services that scale by replicas under the launcher (the gateway and the stand-ins each own a fixed port). */
const replicable = workers;

/** Each worker's metrics port unless its `<NAME>_METRICS_PORT` says otherwise. */
const DEFAULT_METRICS_PORTS: Record<Worker, number> = {
  payment: 9101,
  'pix-adapter': 9102,
  'solana-watcher': 9103,
  checkout: 9104,
  customer: 9105,
  'webhook-dispatcher': 9106,
  ledger: 9107,
};

const launcherSchema = Joi.object<LauncherSettings & { METRICS_PORT?: never; OTEL_SERVICE_NAME?: never }>({
  // `npm start` is the local sandbox unless told otherwise; every process is given APP_ENV explicitly.
  APP_ENV: Joi.string().valid('sandbox', 'production').default('sandbox'),
  PORT: apiGatewaySchema.extract('PORT'),
  DASHBOARD_PORT: dashboardConfigSchema.extract('DASHBOARD_PORT'),
  PSP_SIMULATOR_PORT: pspSimulatorSchema.extract('PSP_SIMULATOR_PORT'),
  SOLANA_LOCALNET_PORT: solanaLocalnetSchema.extract('SOLANA_LOCALNET_PORT'),
  MAIL_CATCHER_SMTP_PORT: mailCatcherSchema.extract('MAIL_CATCHER_SMTP_PORT'),
  MAIL_CATCHER_WEB_PORT: mailCatcherSchema.extract('MAIL_CATCHER_WEB_PORT'),
  ...Object.fromEntries(
    workers.map((name) => [
      launcherMetricsPortVariable(name),
      Joi.number().port().default(DEFAULT_METRICS_PORTS[name]),
    ]),
  ),
  // Seven services cannot share one port: each has its own variable.
  METRICS_PORT: Joi.forbidden().messages({
    'any.unknown':
      '{{#label}} is per service under the launcher: set PAYMENT_METRICS_PORT, PIX_ADAPTER_METRICS_PORT... instead',
  }),
  // One name for every process would make a trace unreadable (the OTEL_* variables go to every traced process).
  OTEL_SERVICE_NAME: Joi.forbidden().messages({
    'any.unknown': '{{#label}} is per process under the launcher: each process is named after its service',
  }),
  ADMIN_TOKEN: apiGatewaySchema.extract('ADMIN_TOKEN'),
  DEMO_BUSINESS: Joi.boolean().default(true),
  DEMO_BUSINESS_FILE: Joi.string().default(join(root, '.run/demo-business.json')),
  LOG_FORMAT: Joi.string().valid('pretty', 'json').optional(),
  STACK_BUILD: Joi.string().valid('source', 'compiled').default('source'),
  RESTART_EXITED_AFTER_MS: Joi.number().integer().min(0).optional(),
  SHUTDOWN_TIMEOUT_MS: commonEnv.SHUTDOWN_TIMEOUT_MS,
  PROCESS_TABLE_FILE: Joi.string().optional(),
  STACK_REPLICAS: Joi.string()
    .pattern(new RegExp(`^(${replicable.join('|')})=[1-8](,(${replicable.join('|')})=[1-8])*$`))
    .optional()
    .messages({
      'string.pattern.base': `{{#label}} must look like payment=2,pix-adapter=2 (services: ${replicable.join(', ')}; 1 to 8 each)`,
    }),
});

const launcherVariables = variableNames(launcherSchema);
/**
 * `--check-config` (what `gateway config check` runs): checks the launcher's settings and every process's config
 * against this environment, as a start would, and exits without starting anything.
 */
const checkOnly = process.argv.includes('--check-config');
/** With `--check-config`, `--check-ports` also checks the ports free (`npm start` does, before it migrates). */
const checkPorts = process.argv.includes('--check-ports');
/** The launcher's own bad variables; reported together with every process's before anything starts. */
const launcherProblem = configProblem(() => loadConfig(launcherSchema, process.env));
// With bad settings, what they read as (defaults applied) still tells each process's environment for the check.
const settings: LauncherSettings = launcherSchema.validate(process.env, {
  abortEarly: false,
  allowUnknown: true,
  stripUnknown: true,
  convert: true,
}).value;
const sandbox = settings.APP_ENV === 'sandbox';
/**
 * Unless LOG_FORMAT says otherwise, lines are pretty only for a person: a sandbox start whose output is a terminal.
 * Production, or output read by a program (a pipe, a file, a log collector), gets the JSON lines as they are.
 */
const logFormat: 'pretty' | 'json' =
  settings.LOG_FORMAT ?? (sandbox && process.stdout.isTTY === true ? 'pretty' : 'json');
const gatewayUrl = `http://127.0.0.1:${settings.PORT}`;
const dashboardUrl = `http://127.0.0.1:${settings.DASHBOARD_PORT}`;
const pspUrl = `http://127.0.0.1:${settings.PSP_SIMULATOR_PORT}`;
const solanaRpcUrl = `http://127.0.0.1:${settings.SOLANA_LOCALNET_PORT}`;
const mailCatcherUrl = `http://127.0.0.1:${settings.MAIL_CATCHER_WEB_PORT}`;

interface ProcessSpec {
  name: string;
  /** Its package, from the repository's root: it runs `src/main.ts`, or `dist/main.js` compiled. */
  packageDir: string;
  sandboxOnly?: boolean;
  /** The variables its config reads: it gets these from the launcher's environment, and no other config variable. */
  variables: string[];
  /** What the launcher sets for it unless the environment sets it explicitly. */
  defaults?: Record<string, string | undefined>;
  /** What the launcher sets for it whatever the environment says (a replica's own ports). */
  overrides?: Record<string, string>;
  /** Loads its config from an environment, as the process does at start (a ConfigError names what is bad). */
  load: (env: NodeJS.ProcessEnv) => unknown;
}

/** The variables each service's config reads; keyed by the one list of services, so none is left out. */
const serviceVariables: Record<ServiceName, string[]> = {
  'api-gateway': apiGatewayVariables,
  payment: paymentVariables,
  'pix-adapter': pixAdapterVariables,
  'solana-watcher': solanaWatcherVariables,
  checkout: checkoutVariables,
  customer: customerVariables,
  'webhook-dispatcher': webhookDispatcherVariables,
  ledger: ledgerVariables,
};

const serviceLoaders: Record<ServiceName, (env: NodeJS.ProcessEnv) => unknown> = {
  'api-gateway': loadApiGatewayConfig,
  payment: loadPaymentConfig,
  'pix-adapter': loadPixAdapterConfig,
  'solana-watcher': loadSolanaWatcherConfig,
  checkout: loadCheckoutConfig,
  customer: loadCustomerConfig,
  'webhook-dispatcher': loadWebhookDispatcherConfig,
  ledger: loadLedgerConfig,
};

/** In the sandbox, the rails reach the stand-ins the launcher runs. */
const railDefaults: Partial<Record<Worker, Record<string, string | undefined>>> = {
  'pix-adapter': { PSP_BASE_URL: sandbox ? pspUrl : undefined },
  'solana-watcher': { SOLANA_RPC_URL: sandbox ? solanaRpcUrl : undefined },
};

/**
 * In the sandbox the webhook dispatcher trusts the local CA of `gateway listen` (made here if missing, where the CLI
 * keeps it: GATEWAY_CLI_TLS_DIR or ~/.config/gateway-cli/listen-tls), so `listen` works against `npm start` with no
 * setup. That CA can only vouch for this machine's names. Node takes one NODE_EXTRA_CA_CERTS file: when the launcher
 * is given one, the dispatcher gets a bundle of it and listen's CA (a temporary file, removed when the launcher exits).
 */
function listenCaForTheDispatcher(): Record<string, string> {
  if (!sandbox) return {};
  try {
    const listenCa = ensureListenTls(readCliEnvironment().tlsDir).caPath;
    const given = process.env.NODE_EXTRA_CA_CERTS;
    if (!given) return { NODE_EXTRA_CA_CERTS: listenCa };
    const bundle = `${readFileSync(given, 'utf8').trimEnd()}\n${readFileSync(listenCa, 'utf8')}`;
    const dir = mkdtempSync(join(tmpdir(), 'gateway-dispatcher-ca-'));
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'ca.pem');
    writeFileSync(file, bundle);
    return { NODE_EXTRA_CA_CERTS: file };
  } catch (err) {
    console.error(`gateway listen cannot reach this stack's webhooks: ${(err as Error).message}`);
    return {};
  }
}

const processes: ProcessSpec[] = [
  {
    name: 'psp-simulator',
    packageDir: 'infra/psp-simulator',
    sandboxOnly: true,
    variables: pspSimulatorVariables,
    load: loadPspSimulatorConfig,
    // The simulated bank accepts the credentials and owns the key the adapter is configured with; it keeps its books
    // in the stack's database, in a schema of its own.
    defaults: {
      PSP_SIMULATOR_PORT: String(settings.PSP_SIMULATOR_PORT),
      PSP_SIMULATOR_DATABASE_URL: process.env.DATABASE_URL,
      PSP_SIMULATOR_CLIENT_ID: process.env.PSP_CLIENT_ID,
      PSP_SIMULATOR_CLIENT_SECRET: process.env.PSP_CLIENT_SECRET,
      PSP_SIMULATOR_PIX_KEY: process.env.PIX_KEY,
      PSP_SIMULATOR_MERCHANT_CITY: process.env.MERCHANT_CITY,
    },
  },
  {
    name: 'solana-localnet',
    packageDir: 'infra/solana-localnet',
    sandboxOnly: true,
    variables: solanaLocalnetVariables,
    load: loadSolanaLocalnetConfig,
    // The local chain funds the payer and creates the accounts of the wallet the watcher is configured with.
    defaults: {
      SOLANA_LOCALNET_PORT: String(settings.SOLANA_LOCALNET_PORT),
      SOLANA_LOCALNET_RECEIVING_WALLET: process.env.RECEIVING_WALLET ?? SANDBOX_RECEIVING_WALLET,
      SOLANA_LOCALNET_PAYER_SECRET_KEY: process.env.SANDBOX_PAYER_SECRET_KEY,
    },
  },
  {
    name: 'mail-catcher',
    packageDir: 'infra/mail-catcher',
    sandboxOnly: true,
    variables: mailCatcherVariables,
    load: loadMailCatcherConfig,
    // The dashboard's mails (verification, password reset, invitations) land here, readable in its web inbox.
    defaults: {
      MAIL_CATCHER_SMTP_PORT: String(settings.MAIL_CATCHER_SMTP_PORT),
      MAIL_CATCHER_WEB_PORT: String(settings.MAIL_CATCHER_WEB_PORT),
    },
  },
  // The gateway last: it is ready once every other service consumes its commands.
  ...[...workers, 'api-gateway' as const].map((name): ProcessSpec => ({
    name,
    packageDir: `services/${name}`,
    variables: serviceVariables[name],
    load: serviceLoaders[name],
    defaults:
      name === 'api-gateway'
        ? { PORT: String(settings.PORT) }
        : {
            METRICS_PORT: String(settings[launcherMetricsPortVariable(name)]),
            ...railDefaults[name],
            ...(name === 'webhook-dispatcher' ? listenCaForTheDispatcher() : {}),
          },
  })),
  // The merchant dashboard, acting through the APIs of the gateway started here.
  {
    name: 'dashboard',
    packageDir: 'services/dashboard',
    variables: dashboardVariables,
    load: loadDashboardConfig,
    // In the sandbox its links name the address it is started on, and its mails go to the catcher started here.
    defaults: {
      DASHBOARD_PORT: String(settings.DASHBOARD_PORT),
      GATEWAY_URL: gatewayUrl,
      DASHBOARD_PUBLIC_URL: sandbox ? dashboardUrl : undefined,
      SMTP_URL: sandbox ? `smtp://127.0.0.1:${settings.MAIL_CATCHER_SMTP_PORT}` : undefined,
    },
  },
];

/** How many processes of each service to run: one, unless STACK_REPLICAS says more. */
const replicaCounts = new Map(
  (settings.STACK_REPLICAS ?? '')
    .split(',')
    .filter(Boolean)
    .map((entry) => [entry.split('=')[0]!, Number(entry.split('=')[1])] as const),
);

/**
 * Replica 2 and later of a service: its metrics on a port of the OS's choosing, and for the PIX adapter a callback
 * listener of its own while the PSP keeps calling the first one's URL (as a load balancer in front of all would).
 */
function replicasOf(spec: ProcessSpec): ProcessSpec[] {
  const count = replicaCounts.get(spec.name) ?? 1;
  const callbackUrl = `http://127.0.0.1:${process.env.CALLBACK_PORT ?? DEFAULT_CALLBACK_PORT}`;
  return Array.from({ length: count }, (_, i) =>
    i === 0
      ? spec
      : {
          ...spec,
          name: `${spec.name}#${i + 1}`,
          defaults: { ...spec.defaults, METRICS_PORT: '0' },
          overrides:
            spec.name === 'pix-adapter'
              ? { CALLBACK_PORT: '0', CALLBACK_PUBLIC_URL: process.env.CALLBACK_PUBLIC_URL ?? callbackUrl }
              : {},
        },
  );
}

/** The environment no process's config reads (PATH, HOME, NODE_OPTIONS...): every process gets it. */
function sharedEnvironment(): Record<string, string> {
  const configVariables = new Set([...launcherVariables, ...processes.flatMap((p) => p.variables)]);
  return definedOnly(Object.entries(process.env).filter(([name]) => !configVariables.has(name)));
}

function processEnvironment(spec: ProcessSpec): Record<string, string> {
  return {
    ...sharedEnvironment(),
    // pg reads it: pg_stat_activity names the service behind each database connection.
    PGAPPNAME: spec.name,
    ...definedOnly(Object.entries(spec.defaults ?? {})),
    ...definedOnly(spec.variables.map((name) => [name, process.env[name]])),
    ...(spec.variables.includes('APP_ENV') ? { APP_ENV: settings.APP_ENV } : {}),
    ...traceResource(spec),
    ...spec.overrides,
  };
}

/** A traced process's resource attributes: its name here (`payment#2`) tells replicas apart in a trace. */
function traceResource(spec: ProcessSpec): Record<string, string> {
  if (!spec.variables.includes('OTEL_RESOURCE_ATTRIBUTES')) return {};
  const instance = `service.instance.id=${encodeURIComponent(spec.name)}`;
  const given = process.env.OTEL_RESOURCE_ATTRIBUTES;
  return { OTEL_RESOURCE_ATTRIBUTES: given ? `${given},${instance}` : instance };
}

function definedOnly(entries: Array<[string, string | undefined]>): Record<string, string> {
  return Object.fromEntries(entries.filter((entry): entry is [string, string] => entry[1] !== undefined));
}

const colors = [31, 32, 33, 34, 35, 36, 91, 92, 93, 94, 95, 96];
const width = Math.max(...processes.map((p) => p.name.length)) + (replicaCounts.size > 0 ? 2 : 0);
const children = new Map<string, ChildProcess>();
let stopping = false;
/**
 * A process still running this long after SIGTERM is killed, so a stop always ends. Its own bound comes first: past
 * SHUTDOWN_TIMEOUT_MS a stop takes at most 2 s to abandon its work and 5 s to flush its telemetry.
 */
const STOP_GRACE_MS = settings.SHUTDOWN_TIMEOUT_MS + 10_000;

function prefixLines(
  name: string,
  color: number,
  stream: NodeJS.ReadableStream,
  out: NodeJS.WritableStream & { isTTY?: boolean },
): void {
  const prefix = out.isTTY ? `\x1b[${color}m${name.padEnd(width)} |\x1b[0m` : `${name.padEnd(width)} |`;
  const show = lineFormatter(out.isTTY === true);
  let buffered = '';
  const write = (line: string) => {
    for (const shown of show(line)) out.write(`${prefix} ${shown}\n`);
  };
  stream.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    lines.forEach(write);
  });
  // A last line without a newline (a process that dies mid-line) is still shown.
  stream.on('end', () => {
    if (buffered) write(buffered);
  });
}

/**
 * How a process's log line is shown (LOG_FORMAT): as it is, or a JSON line rendered by pino-pretty (the prefix names
 * the process, so its name, pid and host are left out). A line that is not JSON (a crash's stack) is shown as it is.
 */
function lineFormatter(colorize: boolean): (line: string) => string[] {
  if (logFormat === 'json') return (line) => [line];
  const pretty = prettyFactory({
    colorize,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,name',
    singleLine: false,
  });
  return (line) => {
    if (!line.startsWith('{')) return [line];
    try {
      JSON.parse(line);
    } catch {
      return [line];
    }
    return pretty(line).replace(/\n+$/, '').split('\n');
  };
}

function start(spec: ProcessSpec, index: number): void {
  // Node itself runs each service (tsx as a loader, not its CLI): one process per service, so a signal reaches it.
  // With the images' heap and C library settings, compiled or not.
  const node = longRunningNode(
    settings.STACK_BUILD === 'compiled'
      ? [join(root, compiledEntry(spec.packageDir))]
      : ['--import', 'tsx', join(root, spec.packageDir, 'src', 'main.ts')],
    processEnvironment(spec),
  );
  const child = spawn(process.execPath, node.args, {
    cwd: root,
    env: node.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const color = colors[index % colors.length]!;
  prefixLines(spec.name, color, child.stdout!, process.stdout);
  prefixLines(spec.name, color, child.stderr!, process.stderr);
  child.on('exit', (code, signal) => {
    // `(0)` is a stop that finished, `(1)` one that ran out of SHUTDOWN_TIMEOUT_MS or failed, `(SIGKILL)` a kill.
    const exited = `${spec.name} (pid ${child.pid}) exited (${signal ?? code})`;
    if (stopping) {
      console.error(exited);
      return;
    }
    const restartAfterMs = settings.RESTART_EXITED_AFTER_MS;
    if (restartAfterMs === undefined) {
      console.error(`${exited}; stopping the stack`);
      void stopAll(1);
      return;
    }
    console.error(`${exited}; starting it again in ${restartAfterMs} ms`);
    setTimeout(() => {
      if (!stopping) start(spec, index);
    }, restartAfterMs);
  });
  children.set(spec.name, child);
  writeProcessTable();
}

function writeProcessTable(): void {
  if (!settings.PROCESS_TABLE_FILE) return;
  const table = Object.fromEntries([...children].map(([name, child]) => [name, child.pid]));
  // Written aside and renamed, so a reader never sees half a file.
  writeFileSync(`${settings.PROCESS_TABLE_FILE}.tmp`, JSON.stringify(table));
  renameSync(`${settings.PROCESS_TABLE_FILE}.tmp`, settings.PROCESS_TABLE_FILE);
}

async function stopAll(exitCode: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  const running = [...children.values()].filter(
    (child) => child.exitCode === null && child.signalCode === null,
  );
  const exited = running.map((child) => new Promise((resolve) => child.once('exit', resolve)));
  for (const child of running) child.kill('SIGTERM');
  const killer = setTimeout(() => running.forEach((child) => child.kill('SIGKILL')), STOP_GRACE_MS);
  await Promise.all(exited);
  clearTimeout(killer);
  process.exit(exitCode);
}

async function waitForHealthy(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await fetch(url)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`${url} did not become ready in ${timeoutMs} ms`);
}

async function admin(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${gatewayUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${settings.ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

interface DemoBusiness {
  business_id: string;
  api_key: string;
  product_id: string;
  checkout_id: string;
}

/**
 * On first start, a demo sandbox business with fee rules, a product and a checkout, so the quick start works at once.
 * Only ids are remembered: every URL is asked of the gateway at each start, so it follows the ports of this start.
 */
async function ensureDemoBusiness(): Promise<DemoBusiness> {
  const file = settings.DEMO_BUSINESS_FILE;
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as Partial<DemoBusiness>;
    const stillThere = await fetch(`${gatewayUrl}/admin/v1/businesses/${saved.business_id}`, {
      headers: { authorization: `Bearer ${settings.ADMIN_TOKEN}` },
    }).then((r) => r.ok);
    // A file from before checkouts were remembered by id gets a new checkout for the same business.
    if (stillThere && saved.api_key && saved.product_id)
      return remember(file, {
        business_id: saved.business_id!,
        api_key: saved.api_key,
        product_id: saved.product_id,
        checkout_id: saved.checkout_id ?? (await demoCheckout(saved.api_key, saved.product_id)).checkout_id,
      });
  }
  const business = await admin('POST', '/admin/v1/businesses', { name: 'Loja Demo' });
  const id = business.business_id as string;
  await admin('PUT', `/admin/v1/businesses/${id}/fee-rules/pix`, { percent_bps: 99, fixed_centavos: 0 });
  await admin('PUT', `/admin/v1/businesses/${id}/fee-rules/crypto`, { percent_bps: 150, fixed_centavos: 0 });
  const product = await admin('POST', `/admin/v1/businesses/${id}/products`, {
    name: 'Camiseta Tupi',
    price: 7990,
    description: 'Camiseta de algodão orgânico',
  });
  const apiKey = business.api_key as string;
  const productId = product.product_id as string;
  const checkout = await demoCheckout(apiKey, productId);
  return remember(file, {
    business_id: id,
    api_key: apiKey,
    product_id: productId,
    checkout_id: checkout.checkout_id,
  });
}

/** Written at every start: `gateway_url` is this start's, so another terminal reaches the PORT this stack was given. */
function remember(file: string, demo: DemoBusiness): DemoBusiness {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify({ ...demo, gateway_url: gatewayUrl }, null, 2), { mode: 0o600 });
  return demo;
}

async function demoCheckout(
  apiKey: string,
  productId: string,
): Promise<{ checkout_id: string; url: string }> {
  return merchant<{ checkout_id: string; url: string }>(apiKey, 'POST', '/v1/checkouts', {
    product_id: productId,
    title: 'Camiseta Tupi',
    return_url: 'https://example.com/obrigado',
    cancel_url: 'https://example.com/carrinho',
  });
}

async function merchant<T>(apiKey: string, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${gatewayUrl}${path}`, {
    method,
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as T;
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/** Waits until something accepts connections on `port` of this machine (a stand-in with no health route). */
async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`nothing listens on port ${port} after ${timeoutMs} ms`);
}

/** What `npm start` prints once everything is up: every URL built from this start's settings. */
async function banner(): Promise<string> {
  const lines = [
    `dashboard:     ${dashboardUrl}  (${sandbox ? 'sign up at /cadastro' : 'sign in at /entrar'})`,
    `gateway:       ${gatewayUrl}  (GET /healthz, /readyz, /metrics)`,
    `API reference: ${gatewayUrl}/docs`,
  ];
  if (sandbox)
    lines.push(
      `mail catcher:  ${mailCatcherUrl}  (the dashboard's e-mails; API: GET /email)`,
      `PSP simulator: ${pspUrl}`,
      `Solana RPC:    ${solanaRpcUrl}`,
    );
  if (sandbox && settings.DEMO_BUSINESS) {
    const demo = await ensureDemoBusiness();
    const checkout = await merchant<{ url: string }>(
      demo.api_key,
      'GET',
      `/v1/checkouts/${demo.checkout_id}`,
    );
    lines.push(
      `demo business: ${demo.business_id}`,
      `demo API key:  ${demo.api_key}`,
      `demo product:  ${demo.product_id}`,
      `demo checkout: ${checkout.url}  (open it in a browser)`,
    );
  }
  return `\n${'='.repeat(72)}\n${lines.join('\n')}\n${'='.repeat(72)}\n`;
}

/** The ConfigError `load` throws, if any. */
function configProblem(load: () => unknown): ConfigError | undefined {
  try {
    load();
    return undefined;
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
}

/**
 * Checks the launcher's settings and the config of every process it would start, each in the environment it would get,
 * and reports every bad variable of every one at once (not one process per attempt): exits 78 when any is bad.
 */
function checkConfiguration(): void {
  const problems = [
    ...(launcherProblem ? [{ name: 'launcher', problem: launcherProblem }] : []),
    ...processes
      .filter((p) => sandbox || !p.sandboxOnly)
      .map((spec) => ({
        name: spec.name,
        problem: configProblem(() => spec.load(processEnvironment(spec))),
      })),
  ].filter((found): found is { name: string; problem: ConfigError } => found.problem !== undefined);
  if (problems.length === 0) {
    if (checkOnly)
      console.log(
        `configuration valid (APP_ENV=${settings.APP_ENV}) for the launcher and every process; ` +
          `log lines shown as ${logFormat} (LOG_FORMAT)`,
      );
    return;
  }
  const report = problems.map(
    ({ name, problem }) => `${name}: ${problem.message}\n(bad variables: ${problem.variables.join(', ')})`,
  );
  const every = [...new Set(problems.flatMap(({ problem }) => problem.variables))].sort();
  const checked = processes.filter((p) => sandbox || !p.sandboxOnly).length + 1;
  process.stderr.write(
    `${report.join('\n')}\n\n${problems.length} of the ${checked} checked (the launcher and its processes) refuse ` +
      `this environment (APP_ENV=${settings.APP_ENV}); every variable to set or fix:\n${every.join(' ')}\n`,
  );
  process.exit(78);
}

/** A compiled start needs `pnpm build` first: the launcher names what is missing rather than starting half a stack. */
function checkCompiledFiles(): void {
  if (settings.STACK_BUILD !== 'compiled') return;
  const missing = processes
    .filter((p) => sandbox || !p.sandboxOnly)
    .map((p) => compiledEntry(p.packageDir))
    .filter((file) => !existsSync(join(root, file)));
  if (missing.length === 0) return;
  process.stderr.write(
    `STACK_BUILD=compiled runs what \`pnpm build\` writes, and it is missing: ${missing.join(', ')}\n`,
  );
  process.exit(78);
}

/**
 * The fixed ports this start listens on, each with the variable that sets it (the replicas after the first take ports
 * the OS chooses).
 */
function listeningPorts(wanted: ProcessSpec[]): Array<{ variable: string; port: number }> {
  const running = new Set(wanted.map((p) => p.name));
  const ports = [
    { variable: 'PORT', port: settings.PORT },
    { variable: 'DASHBOARD_PORT', port: settings.DASHBOARD_PORT, of: 'dashboard' },
    ...workers.map((name) => ({
      variable: launcherMetricsPortVariable(name),
      port: settings[launcherMetricsPortVariable(name)]!,
      of: name,
    })),
    {
      variable: 'CALLBACK_PORT',
      port: Number(process.env.CALLBACK_PORT ?? DEFAULT_CALLBACK_PORT),
      of: 'pix-adapter',
    },
    { variable: 'PSP_SIMULATOR_PORT', port: settings.PSP_SIMULATOR_PORT, of: 'psp-simulator' },
    { variable: 'SOLANA_LOCALNET_PORT', port: settings.SOLANA_LOCALNET_PORT, of: 'solana-localnet' },
    { variable: 'MAIL_CATCHER_SMTP_PORT', port: settings.MAIL_CATCHER_SMTP_PORT, of: 'mail-catcher' },
    { variable: 'MAIL_CATCHER_WEB_PORT', port: settings.MAIL_CATCHER_WEB_PORT, of: 'mail-catcher' },
  ];
  return ports
    .filter((entry) => !('of' in entry) || running.has(entry.of!))
    .filter(({ port }) => port !== 0)
    .map(({ variable, port }) => ({ variable, port }));
}

/**
 * Why `port` cannot be listened on (`EADDRINUSE` when something listens on it, on any address: a listener on the
 * wildcard address conflicts with every one; `EACCES` for a port below 1024 without the right to it), or undefined.
 */
function portRefusal(port: number): Promise<string | undefined> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? String(err)));
    server.listen(port, () => server.close(() => resolve(undefined)));
  });
}

/**
 * Every port this start will listen on is checked free before anything starts: a port another program holds (or one
 * given to two variables) is named with its variable at once, rather than found a minute later as one process's
 * crash that stops the stack. (A port taken between this check and the listen still stops it, as before.)
 */
async function checkPortsFree(wanted: ProcessSpec[]): Promise<void> {
  const problems: string[] = [];
  const given = new Map<number, string>();
  for (const { variable, port } of listeningPorts(wanted)) {
    const other = given.get(port);
    if (other !== undefined) {
      problems.push(`${variable} and ${other} are both ${port}`);
      continue;
    }
    given.set(port, variable);
    const refusal = await portRefusal(port);
    if (refusal === 'EADDRINUSE') problems.push(`port ${port} (${variable}) is taken (EADDRINUSE)`);
    else if (refusal !== undefined)
      problems.push(`port ${port} (${variable}) cannot be listened on (${refusal})`);
  }
  if (problems.length === 0) return;
  process.stderr.write(
    `${problems.join('\n')}\nnothing was started: give each a free port (the README's Quick start lists the port ` +
      `variables)\n`,
  );
  process.exit(78);
}

async function main(): Promise<void> {
  checkConfiguration();
  const wanted = processes.filter((p) => sandbox || !p.sandboxOnly).flatMap(replicasOf);
  if (checkOnly) {
    if (checkPorts) await checkPortsFree(wanted);
    return;
  }
  checkCompiledFiles();
  await checkPortsFree(wanted);
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));
  // The stand-ins first, listening before any service starts: the PIX adapter registers its callback URL at the PSP
  // as it starts, and a PSP not yet listening would leave the first payments without a callback for a retry's while.
  wanted.filter((p) => p.sandboxOnly).forEach(start);
  if (sandbox)
    await Promise.all(
      [
        settings.PSP_SIMULATOR_PORT,
        settings.SOLANA_LOCALNET_PORT,
        settings.MAIL_CATCHER_SMTP_PORT,
        settings.MAIL_CATCHER_WEB_PORT,
      ].map((port) => waitForPort(port, 120_000)),
    );
  wanted.filter((p) => !p.sandboxOnly).forEach(start);
  // Last, once everything is up: the gateway ready (every service consumes its commands).
  await waitForHealthy(`${gatewayUrl}/readyz`, 120_000);
  await waitForHealthy(`${dashboardUrl}/readyz`, 120_000);
  console.log(await banner());
}

main().catch((err: unknown) => {
  console.error(err);
  void stopAll(1);
});
