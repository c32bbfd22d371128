import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { longRunningNode } from '@gateway/config';
import { serviceNames } from '@gateway/contracts';
import { STACK_SHUTDOWN_TIMEOUT_MS, anotherReplica, type RunningStack } from '@gateway/testkit';
import { waitFor } from '@gateway/testkit-core';
import type { Fault } from './faults';

const run = promisify(execFile);

/** This checkout: the current release. */
const currentRoot = join(__dirname, '../../..');

/** A release checked out from git into a directory of its own, its dependencies installed. */
export interface CheckedOutRelease {
  commit: string;
  root: string;
  /** The public events that release's webhooks can subscribe to. */
  webhookEventNames: readonly string[];
  remove(): void;
}

/**
 * Checks `commit` out of this repository's history into a temporary directory (`git archive`: the current checkout,
 * its index and its worktree list are left as they are) and installs its dependencies from its own lockfile, from
 * pnpm's store when it holds them all, else from the registry.
 */
export async function checkOutRelease(
  commit: string,
  log: (line: string) => void,
): Promise<CheckedOutRelease> {
  const root = mkdtempSync(join(tmpdir(), `release-${commit.slice(0, 7)}-`));
  const remove = () => rmSync(root, { recursive: true, force: true });
  try {
    await run('git', ['-C', currentRoot, 'cat-file', '-e', `${commit}^{commit}`]).catch(() => {
      throw new Error(
        `commit ${commit} is not in this clone's history (a shallow clone? git fetch --unshallow)`,
      );
    });
    await run('bash', [
      '-o',
      'pipefail',
      '-c',
      'git -C "$1" archive --format=tar "$2" | tar -x -C "$3"',
      'archive',
      currentRoot,
      commit,
      root,
    ]);
    const install = (...extra: string[]) =>
      run('pnpm', ['install', '--frozen-lockfile', ...extra], {
        cwd: root,
        env: { ...process.env, CI: 'true' },
        maxBuffer: 64 * 1024 * 1024,
      });
    await install('--offline').catch(async (err: unknown) => {
      log(
        `the pnpm store lacks some of ${commit.slice(0, 7)}'s packages (${String(err).split('\n')[0]}): online`,
      );
      await install();
    });
    // A release that compiles its processes (`pnpm build`, ADR 0045) runs them compiled, as the test stacks do.
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      scripts?: Record<string, string>;
    };
    if (manifest.scripts?.build) await run('pnpm', ['build'], { cwd: root, maxBuffer: 64 * 1024 * 1024 });
    // Read by that release's own code (its contracts name no type from anywhere else).
    const { stdout } = await run(
      join(root, 'node_modules/.bin/tsx'),
      ['-e', "console.log(JSON.stringify(require('./packages/contracts/src/public-api').webhookEventNames))"],
      { cwd: root },
    );
    return { commit, root, webhookEventNames: JSON.parse(stdout) as string[], remove };
  } catch (err) {
    remove();
    throw err;
  }
}

/** The processes one release's launcher runs for a service: `payment`, then its replicas `payment#2`... */
export function replicasOf(stack: RunningStack, service: string): string[] {
  const names = [service];
  for (let replica = 2; hasProcess(stack, `${service}#${replica}`); replica += 1)
    names.push(`${service}#${replica}`);
  return names;
}

function hasProcess(stack: RunningStack, name: string): boolean {
  try {
    stack.pidOf(name);
    return true;
  } catch {
    return false;
  }
}

/** How a replica of the release before ended when it was replaced. */
export interface ReplacedReplica {
  name: string;
  /** Its exit code (`0`: a graceful stop) or the signal that ended it, as its launcher reported it. */
  exit: string;
  /** From the start of its successor to its own exit. */
  tookMs: number;
}

/** How long a new replica gets to be ready (a cold start on a loaded machine, migrations included). */
const READY_TIMEOUT_MS = 120_000;
/** A replica of the release before still running this long after SIGTERM has not stopped by itself. */
const EXIT_TIMEOUT_MS = STACK_SHUTDOWN_TIMEOUT_MS + 10_000;

/**
 * A rolling upgrade, as an orchestrator does it: each replica the release before runs is replaced in turn by one of
 * this release's, started with the environment the replaced one was started with (its own ports new), ready (the
 * gateway and the dashboard: `/readyz`; the other services: consuming at least every queue their predecessor consumed),
 * and only then is the old one sent SIGTERM. The gateway's balancer is pointed at the new gateway before the old one
 * stops, as a Kubernetes Service stops sending to a terminating pod.
 */
export class RollingUpgrade {
  readonly replaced: ReplacedReplica[] = [];
  private readonly started: ChildProcess[] = [];

  /** One fault per replica, service after service in `order` (each of them and the dashboard once). */
  steps(stack: RunningStack, order: readonly string[]): Fault[] {
    const every = [...serviceNames, 'dashboard'];
    if (order.length !== every.length || every.some((service) => !order.includes(service)))
      throw new Error(`the order of upgrade must name each of ${every.join(', ')} once: ${order.join(', ')}`);
    return order.flatMap((service) => replicasOf(stack, service)).map((name) => this.replace(name));
  }

  /** Replaces the replica `name` of the release before with one of this release. */
  replace(name: string): Fault {
    const service = name.split('#')[0]!;
    return {
      name: `roll ${name} to this release`,
      reachesClients: true,
      inject: async (targets) => {
        const { stack } = targets;
        const oldPid = stack.pidOf(name);
        const startedAt = Date.now();
        const { env, readyUrl, consumes: consumesLike } = await anotherReplica(stack, name);
        const child = this.spawnCurrent(stack, name, service, env);
        await waitFor(
          async () => {
            if (child.exitCode !== null || child.signalCode !== null)
              throw new Error(
                `${name} of this release exited (${child.exitCode ?? child.signalCode}) as it started`,
              );
            const ready = await fetch(readyUrl, { signal: AbortSignal.timeout(3000) })
              .then((r) => r.ok)
              .catch(() => false);
            if (!ready || !consumesLike) return ready;
            return (
              (await targets.broker.consumersOf(`${service}:${child.pid}`)) >=
              (await targets.broker.consumersOf(`${service}:${oldPid}`))
            );
          },
          { timeoutMs: READY_TIMEOUT_MS, intervalMs: 1000, what: `${name} of this release to be ready` },
        );
        if (service === 'api-gateway') targets.gatewayBalancer!.pointAt(new URL(readyUrl).origin);
        else if (name === service && service in stack.metricsUrls)
          stack.metricsUrls[service as keyof RunningStack['metricsUrls']] = new URL(readyUrl).origin;
        process.kill(oldPid, 'SIGTERM');
        const exit = await waitFor(() => stack.exitOf(oldPid), {
          timeoutMs: EXIT_TIMEOUT_MS,
          intervalMs: 50,
          what: `${name} of the release before to exit after SIGTERM`,
        });
        this.replaced.push({ name, exit, tookMs: Date.now() - startedAt });
      },
    };
  }

  /** Stops every process of this release the upgrade started (SIGTERM, then SIGKILL past the bound). */
  async stop(): Promise<void> {
    const running = this.started.filter((c) => c.exitCode === null && c.signalCode === null);
    await Promise.all(
      running.map(async (child) => {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), EXIT_TIMEOUT_MS);
        await exited;
        clearTimeout(killer);
      }),
    );
  }

  /** Starts this release's `service` compiled, as the test stacks' launcher does, its output in the stack's logs under `name'`. */
  private spawnCurrent(
    stack: RunningStack,
    name: string,
    service: string,
    env: Record<string, string>,
  ): ChildProcess {
    // This release's heap settings, not those of the release it replaces (its launcher started the running ones).
    const node = longRunningNode([join(currentRoot, `services/${service}/dist/main.js`)], env);
    const child = spawn(process.execPath, node.args, {
      cwd: currentRoot,
      env: node.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const shown = `${name}'`;
    for (const stream of [child.stdout, child.stderr]) {
      let buffered = '';
      stream.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        if (lines.length > 0) stack.logs.push(lines.map((line) => `${shown} | ${line}\n`).join(''));
      });
    }
    // As the launcher reports an exit, so stack.exitOf reads it.
    child.on('exit', (code, signal) =>
      stack.logs.push(`${shown} (pid ${child.pid}) exited (${signal ?? code})\n`),
    );
    this.started.push(child);
    return child;
  }
}
