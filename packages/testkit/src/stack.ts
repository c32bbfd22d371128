import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { isolatedEnvironment, type IsolatedEnvironment } from './service-env';
import { waitFor } from './wait';
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

export interface RunningStack {
  env: IsolatedEnvironment;
  gatewayUrl: string;
  pspUrl: string;
  solanaRpcUrl: string;
  adminToken: string;
  /** Everything the processes printed, for a failing test's diagnosis. */
  logs: string[];
  stop(): Promise<void>;
}

const entries = {
  'psp-simulator': 'infra/psp-simulator/src/main.ts',
  'solana-localnet': 'infra/solana-localnet/src/main.ts',
  payment: 'services/payment/src/main.ts',
  'pix-adapter': 'services/pix-adapter/src/main.ts',
  'solana-watcher': 'services/solana-watcher/src/main.ts',
  checkout: 'services/checkout/src/main.ts',
  customer: 'services/customer/src/main.ts',
  'webhook-dispatcher': 'services/webhook-dispatcher/src/main.ts',
  'api-gateway': 'services/api-gateway/src/main.ts',
} as const;

/**
 * The whole stack as real processes (as `npm start` runs it) on a private database, broker prefix, Redis prefix and
 * free ports: for end-to-end tests through the public HTTP API.
 */
export async function startStack(extraEnv: Record<string, string> = {}): Promise<RunningStack> {
  const env = await isolatedEnvironment('e2e');
  const [gatewayPort, pspPort, rpcPort, callbackPort] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  const adminToken = 'e2e-admin-token';
  const shared: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    ...env.config,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
    ADMIN_TOKEN: adminToken,
    PORT: String(gatewayPort),
    PSP_BASE_URL: `http://127.0.0.1:${pspPort}`,
    SOLANA_RPC_URL: `http://127.0.0.1:${rpcPort}`,
    CALLBACK_PORT: String(callbackPort),
    POLL_INTERVAL_MS: '300',
    DELIVERY_POLL_INTERVAL_MS: '200',
    RATE_LIMIT_PER_MINUTE: '100000',
    ...extraEnv,
  };
  const ports: Record<string, string> = {
    'psp-simulator': String(pspPort),
    'solana-localnet': String(rpcPort),
  };
  const logs: string[] = [];
  const children: ChildProcess[] = [];
  const tsx = join(root, 'node_modules/.bin/tsx');
  for (const [name, entry] of Object.entries(entries)) {
    const child = spawn(tsx, [join(root, entry)], {
      cwd: root,
      env: { ...shared, ...(ports[name] ? { PORT: ports[name] } : {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const record = (chunk: Buffer) => logs.push(`[${name}] ${chunk.toString()}`);
    child.stdout?.on('data', record);
    child.stderr?.on('data', record);
    children.push(child);
  }
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  const stop = async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
            child.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            child.kill('SIGTERM');
          }),
      ),
    );
    await env.database.drop().catch(() => undefined);
    await deleteBrokerNames(env.config.AMQP_PREFIX).catch(() => undefined);
  };
  try {
    await waitFor(() => fetch(`${gatewayUrl}/readyz`).then((r) => r.ok), {
      timeoutMs: 90_000,
      intervalMs: 500,
      what: 'the stack to be ready',
    });
  } catch (err) {
    await stop();
    throw new Error(`${String(err)}\n${logs.slice(-40).join('')}`);
  }
  return {
    env,
    gatewayUrl,
    pspUrl: `http://127.0.0.1:${pspPort}`,
    solanaRpcUrl: `http://127.0.0.1:${rpcPort}`,
    adminToken,
    logs,
    stop,
  };
}
