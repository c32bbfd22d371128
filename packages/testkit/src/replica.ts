import { readFileSync } from 'node:fs';
import { freePort, type RunningStack } from './stack';

/** How to start one more replica of a running process, and where to ask whether it is ready. */
export interface ReplicaLaunch {
  env: Record<string, string>;
  /** The gateway's and the dashboard's `/readyz`; another service's `/healthz` (its readiness probe everywhere). */
  readyUrl: string;
  /** Whether the new one serves a broker's queues (every service but the gateway and the dashboard). */
  consumes: boolean;
  /** The node options the running one was started with (its command line between node and its file): its V8 heap's. */
  nodeFlags: string[];
}

/**
 * The environment the launcher started the process `name` of a stack with (its choice of variables, read from
 * /proc), with new ports for what it listens on: two processes cannot share one. The dashboard's gateway is the
 * stack's gateway URL (a balancer's, where a test put one in front); a PIX adapter gets its own callback listener,
 * which it registers at the PSP as it starts.
 */
export async function anotherReplica(stack: RunningStack, name: string): Promise<ReplicaLaunch> {
  const pid = stack.pidOf(name);
  const env = Object.fromEntries(
    readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .filter((entry) => entry.includes('='))
      .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
  ) as Record<string, string>;
  const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  // Its node options (`--name=value`), not the loader of a process run from source (`--import tsx`).
  const nodeFlags = commandLine.slice(1, -1).filter((word) => /^--[a-z-]+=/.test(word));
  const port = await freePort();
  const local = (p: number) => `http://127.0.0.1:${p}`;
  const service = name.split('#')[0]!;
  if (service === 'api-gateway')
    return {
      env: { ...env, PORT: String(port) },
      readyUrl: `${local(port)}/readyz`,
      consumes: false,
      nodeFlags,
    };
  if (service === 'dashboard')
    return {
      env: { ...env, DASHBOARD_PORT: String(port), GATEWAY_URL: stack.gatewayUrl },
      readyUrl: `${local(port)}/readyz`,
      consumes: false,
      nodeFlags,
    };
  const callback = service === 'pix-adapter' ? await freePort() : undefined;
  return {
    env: {
      ...env,
      METRICS_PORT: String(port),
      ...(callback === undefined
        ? {}
        : { CALLBACK_PORT: String(callback), CALLBACK_PUBLIC_URL: local(callback) }),
    },
    readyUrl: `${local(port)}/healthz`,
    consumes: true,
    nodeFlags,
  };
}
