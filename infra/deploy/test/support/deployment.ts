/**
 * What the deployment checks read: the compose file and the Kubernetes manifests as parsed documents, the vendored
 * schemas as validators, and every process of the stack with its own config rules (the same modules the processes
 * load at start), so a check compares a manifest with what the process really reads and listens on.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import Ajv, { type ValidateFunction } from 'ajv';
import draft07 from 'ajv/dist/refs/json-schema-draft-07.json';
import addFormats from 'ajv-formats';
import bs58 from 'bs58';
import { parse, parseAllDocuments } from 'yaml';
import { apiGatewayVariables, loadApiGatewayConfig } from '@gateway/api-gateway/src/config';
import { checkoutVariables, loadCheckoutConfig } from '@gateway/checkout/src/config';
import { customerVariables, loadCustomerConfig } from '@gateway/customer/src/config';
import { dashboardVariables, loadDashboardConfig } from '@gateway/dashboard/src/config';
import { ledgerVariables, loadLedgerConfig } from '@gateway/ledger/src/config';
import { loadPaymentConfig, paymentVariables } from '@gateway/payment/src/config';
import { loadPixAdapterConfig, pixAdapterVariables } from '@gateway/pix-adapter/src/config';
import { loadMailCatcherConfig, mailCatcherVariables } from '@gateway/mail-catcher/src/config';
import { loadPspSimulatorConfig, pspSimulatorVariables } from '@gateway/psp-simulator/src/config';
import {
  readConfig as readLocalnetConfig,
  solanaLocalnetVariables,
} from '@gateway/solana-localnet/src/config';
import { loadSolanaWatcherConfig, solanaWatcherVariables } from '@gateway/solana-watcher/src/config';
import { serviceNames } from '@gateway/contracts';
import { refusedVariables } from '@gateway/testkit';
import {
  loadWebhookDispatcherConfig,
  webhookDispatcherVariables,
} from '@gateway/webhook-dispatcher/src/config';
import {
  applyDefinitionsVariables,
  loadApplyDefinitionsConfig,
  loadWaitForDefinitionsConfig,
  waitForDefinitionsVariables,
} from '../../src/config';

export const repoRoot = join(__dirname, '../../../..');
export const k8sDir = join(repoRoot, 'infra/k8s');
const schemasDir = join(__dirname, '../../schemas');

export type Env = Record<string, string>;

/** A process of the stack: what its config reads, how it loads, and where it then listens. */
export interface StackProcess {
  name: string;
  /** The file its image runs, from the repository's root (its Dockerfile target's command). */
  entry: string;
  variables: readonly string[];
  load(env: Env): unknown;
  /** The port its health endpoints are on, by its loaded config. */
  healthPort(env: Env): number;
  /** Every port it listens on, by its loaded config. */
  ports(env: Env): number[];
}

function metricsPort(config: { METRICS_PORT?: number }): number {
  if (config.METRICS_PORT === undefined) throw new Error('no METRICS_PORT: the process serves no /healthz');
  return config.METRICS_PORT;
}

function worker(
  name: string,
  variables: readonly string[],
  load: (env: Env) => { METRICS_PORT?: number },
): StackProcess {
  return {
    name,
    entry: `services/${name}/dist/main.js`,
    variables,
    load,
    healthPort: (env) => metricsPort(load(env)),
    ports: (env) => [metricsPort(load(env))],
  };
}

/**
 * Every service (contracts `deployedServiceNames`): each is one Deployment in infra/k8s and one compose service. The
 * services of the broker come first (`serviceNames`), then the web app that owns no queue (`webServiceNames`).
 */
export const stackServices: StackProcess[] = [
  {
    name: 'api-gateway',
    entry: 'services/api-gateway/dist/main.js',
    variables: apiGatewayVariables,
    load: loadApiGatewayConfig,
    healthPort: (env) => loadApiGatewayConfig(env).PORT,
    ports: (env) => [loadApiGatewayConfig(env).PORT],
  },
  worker('payment', paymentVariables, loadPaymentConfig),
  {
    ...worker('pix-adapter', pixAdapterVariables, loadPixAdapterConfig),
    ports: (env) => {
      const config = loadPixAdapterConfig(env);
      return [metricsPort(config), config.CALLBACK_PORT];
    },
  },
  worker('solana-watcher', solanaWatcherVariables, loadSolanaWatcherConfig),
  worker('checkout', checkoutVariables, loadCheckoutConfig),
  worker('customer', customerVariables, loadCustomerConfig),
  worker('webhook-dispatcher', webhookDispatcherVariables, loadWebhookDispatcherConfig),
  worker('ledger', ledgerVariables, loadLedgerConfig),
  {
    name: 'dashboard',
    entry: 'services/dashboard/dist/main.js',
    variables: dashboardVariables,
    load: loadDashboardConfig,
    healthPort: (env) => loadDashboardConfig(env).DASHBOARD_PORT,
    ports: (env) => [loadDashboardConfig(env).DASHBOARD_PORT],
  },
];

/** Whether a service serves /healthz and /metrics on its own HTTP port (the gateway, the dashboard) rather than on a
 * metrics listener (METRICS_PORT). */
export function servesMetricsOnItsHttpPort(name: string): boolean {
  return name === 'api-gateway' || name === 'dashboard';
}

/** The services that exchange messages over the broker (contracts `serviceNames`): every one but the dashboard. */
export const messageServices: StackProcess[] = stackServices.filter((service) =>
  (serviceNames as readonly string[]).includes(service.name),
);

/** The sandbox stand-ins (compose profile `sandbox`). */
export const standIns: StackProcess[] = [
  {
    name: 'psp-simulator',
    entry: 'infra/psp-simulator/dist/main.js',
    variables: pspSimulatorVariables,
    load: loadPspSimulatorConfig,
    healthPort: (env) => loadPspSimulatorConfig(env).PSP_SIMULATOR_PORT,
    ports: (env) => [loadPspSimulatorConfig(env).PSP_SIMULATOR_PORT],
  },
  {
    name: 'solana-localnet',
    entry: 'infra/solana-localnet/dist/main.js',
    variables: solanaLocalnetVariables,
    load: readLocalnetConfig,
    healthPort: (env) => readLocalnetConfig(env).port,
    ports: (env) => [readLocalnetConfig(env).port],
  },
  {
    // The dashboard's SMTP relay in the sandbox: its web inbox (and REST API) is probed for health.
    name: 'mail-catcher',
    entry: 'infra/mail-catcher/dist/main.js',
    variables: mailCatcherVariables,
    load: loadMailCatcherConfig,
    healthPort: (env) => loadMailCatcherConfig(env).MAIL_CATCHER_WEB_PORT,
    ports: (env) => [
      loadMailCatcherConfig(env).MAIL_CATCHER_SMTP_PORT,
      loadMailCatcherConfig(env).MAIL_CATCHER_WEB_PORT,
    ],
  },
];

/** The deploy step that applies the RabbitMQ definitions (a one-shot: no port, no health endpoint). */
export const definitionsStep = {
  name: 'rabbitmq-definitions',
  entry: 'infra/deploy/dist/apply-rabbitmq-definitions.js',
  variables: applyDefinitionsVariables,
  load: loadApplyDefinitionsConfig,
};

/** The init container of every Deployment that holds the service until the RabbitMQ definitions are on the broker. */
export const definitionsWait = {
  name: 'wait-for-rabbitmq-definitions',
  entry: 'infra/deploy/dist/wait-for-rabbitmq-definitions.js',
  variables: waitForDefinitionsVariables,
  load: loadWaitForDefinitionsConfig,
};

/** Read by a library, not by a config: pg names each database connection after it. */
export const runtimeVariables = ['PGAPPNAME'];

/** The variables a process refuses to start without in production (its own rules decide). */
export function productionRequired(process: Pick<StackProcess, 'load'>): string[] {
  return refusedVariables(() => process.load({ APP_ENV: 'production' }));
}

/** Valid values of this deployment's own secrets, made up for a test: what an operator puts in the Secrets. */
export function madeUpSecrets(): Env {
  const wallet = Keypair.generate();
  const password = () => randomBytes(16).toString('hex');
  return {
    DATABASE_URL: `postgres://gateway:${password()}@postgres.internal:5432/gateway`,
    MIGRATION_DATABASE_URL: `postgres://ledger_owner:${password()}@postgres.internal:5432/gateway`,
    AMQP_URLS: ((secret) =>
      [0, 1, 2].map((n) => `amqp://gateway:${secret}@rabbitmq-${n}.rabbitmq-nodes:5672/gateway`).join(','))(
      password(),
    ),
    RABBITMQ_ERLANG_COOKIE: randomBytes(32).toString('hex'),
    RABBITMQ_DEFAULT_USER: 'admin',
    RABBITMQ_DEFAULT_PASS: password(),
    REDIS_URL: `redis://:${password()}@redis.internal:6379`,
    SOLANA_RPC_URL: `https://solana-mainnet.rpc-provider.test/${randomBytes(8).toString('hex')}`,
    ADMIN_TOKEN: randomBytes(32).toString('hex'),
    IDEMPOTENCY_RESPONSE_KEY: randomBytes(32).toString('base64'),
    DASHBOARD_SEAL_KEY: randomBytes(32).toString('base64'),
    SMTP_URL: `smtp://painel:${password()}@smtp.merchant.test:587`,
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
    PSP_CLIENT_ID: `client-${randomBytes(4).toString('hex')}`,
    PSP_CLIENT_SECRET: randomBytes(24).toString('hex'),
    CALLBACK_TOKEN: randomBytes(24).toString('hex'),
    PSP_ACCOUNT_SEALING_KEY: randomBytes(32).toString('base64'),
    RECEIVING_WALLET: wallet.publicKey.toBase58(),
    REFUND_SIGNER_SECRET_KEY: bs58.encode(wallet.secretKey),
    RABBITMQ_MANAGEMENT_USERNAME: 'admin',
    RABBITMQ_MANAGEMENT_PASSWORD: randomBytes(16).toString('hex'),
  };
}

/** Valid values of this deployment's own settings (not secret), made up for a test: what an operator configures. */
export function madeUpSettings(): Env {
  return {
    PUBLIC_BASE_URL: 'https://pay.merchant.test',
    PSP_BASE_URL: 'https://pix.psp.test',
    PIX_KEY: 'pix@merchant.test',
    MERCHANT_CITY: 'CAMPINAS',
    CALLBACK_PUBLIC_URL: 'https://pix-callbacks.merchant.test',
    DASHBOARD_PUBLIC_URL: 'https://painel.merchant.test',
    MAIL_FROM: 'Painel <painel@merchant.test>',
  };
}

/** The compose file with its YAML anchors and merge keys resolved, before interpolation. */
export function composeFile(): ComposeFile {
  return parse(readFileSync(join(repoRoot, 'docker-compose.yml'), 'utf8'), { merge: true }) as ComposeFile;
}

export interface ComposeService {
  build?: { context: string; dockerfile: string; target?: string; args?: Record<string, string> };
  image?: string;
  read_only?: boolean;
  tmpfs?: string[] | string;
  entrypoint?: string[] | string;
  command?: string[] | string;
  volumes?: string[];
  profiles?: string[];
  restart?: string;
  environment?: Record<string, string | number | null>;
  healthcheck?: { test: string[] | string };
  depends_on?: Record<string, { condition: string; required?: boolean }>;
  ports?: string[];
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
  [key: string]: unknown;
}

/** A `${VAR:?message}` or `${VAR?message}` with nothing to take: compose refuses to run (no `up`, no `config`). */
export class MissingVariableError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`required variable ${variable} is missing a value: ${message}`);
  }
}

/**
 * Compose's interpolation of a value (`${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:?error}`,
 * `${VAR?error}`, `$$`) against `shell` (the environment and the --env-file): with an empty shell, what
 * `docker compose config` prints when nothing is set, or its refusal.
 */
export function interpolate(value: string, shell: Env = {}): string {
  return value.replace(
    /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}/g,
    (match, name: string, operator: string | undefined, argument: string | undefined) => {
      if (match === '$$') return '$';
      const set = shell[name];
      switch (operator) {
        case ':-':
          return set ? set : argument!;
        case '-':
          return set ?? argument!;
        case ':?':
          if (!set) throw new MissingVariableError(name, argument!);
          return set;
        case '?':
          if (set === undefined) throw new MissingVariableError(name, argument!);
          return set;
        default:
          return set ?? '';
      }
    },
  );
}

/** Every `${VAR...}` expression of a value: its name, its operator (`:-`, `-`, `:?`, `?`, none) and argument. */
export function interpolations(value: string): Array<{ name: string; operator?: string; argument?: string }> {
  return [...value.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}/g)].map((match) => ({
    name: match[1]!,
    operator: match[2],
    argument: match[3],
  }));
}

/** An env file as compose reads one (`KEY=value` lines, `#` comments; the sandbox file needs nothing more). */
export function readEnvFile(path: string): Env {
  const env: Env = {};
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(trimmed);
    if (!match) throw new Error(`${path}: not KEY=value: ${line}`);
    env[match[1]!] = match[2]!;
  }
  return env;
}

/** The sandbox's env file (`docker compose --env-file infra/compose/sandbox.env --profile sandbox up`). */
export const sandboxEnvFile = join(repoRoot, 'infra/compose/sandbox.env');

/**
 * A compose service's environment as its container gets it: interpolated against `shell`; a key without a value takes
 * the shell's, and is left out when the shell has none.
 */
export function composeEnvironment(service: ComposeService, shell: Env = {}): Env {
  const env: Env = {};
  for (const [name, value] of Object.entries(service.environment ?? {})) {
    if (value === null) {
      if (shell[name] !== undefined) env[name] = shell[name];
    } else env[name] = interpolate(String(value), shell);
  }
  return env;
}

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [key: string]: unknown;
}

/** Every object of every manifest in infra/k8s (the kustomization itself aside), with the file it is in. */
export function k8sObjects(): Array<{ file: string; object: K8sObject }> {
  return readdirSync(k8sDir)
    .filter((file) => file.endsWith('.yaml') && file !== 'kustomization.yaml')
    .sort()
    .flatMap((file) =>
      parseAllDocuments(readFileSync(join(k8sDir, file), 'utf8')).map((document) => {
        if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0]!.message}`);
        return { file, object: document.toJS() as K8sObject };
      }),
    );
}

export function kustomization(): {
  resources: string[];
  namespace: string;
  images: Array<{ name: string; newName?: string; newTag?: string }>;
} {
  return parse(readFileSync(join(k8sDir, 'kustomization.yaml'), 'utf8')) as ReturnType<typeof kustomization>;
}

function readSchema(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(schemasDir, file), 'utf8')) as Record<string, unknown>;
}

/** The vendored compose specification's validator. */
export function composeValidator(): ValidateFunction {
  const ajv = new Ajv({ allErrors: true, strict: false });
  // The specification names draft-07 by its https address; Ajv knows draft-07 by its http one.
  ajv.addMetaSchema({ ...draft07, $id: 'https://json-schema.org/draft-07/schema' });
  return ajv.compile(readSchema('compose-spec.json'));
}

/** A validator per Kubernetes kind (`apps/v1 Deployment`), from the vendored strict schemas. */
export function kubernetesValidators(): Map<string, ValidateFunction> {
  const ajv = new Ajv({ allErrors: true, strict: true });
  addFormats(ajv);
  const schema = readSchema('kubernetes-v1.36-strict.json');
  ajv.addSchema(schema);
  const validators = new Map<string, ValidateFunction>();
  for (const [name, definition] of Object.entries(schema.definitions as Record<string, KindSchema>)) {
    const apiVersion = definition.properties?.apiVersion?.enum?.[0];
    const kind = definition.properties?.kind?.enum?.[0];
    if (apiVersion && kind)
      validators.set(`${apiVersion} ${kind}`, ajv.getSchema(`${schema.$id as string}#/definitions/${name}`)!);
  }
  return validators;
}

interface KindSchema {
  properties?: { apiVersion?: { enum?: string[] }; kind?: { enum?: string[] } };
}
