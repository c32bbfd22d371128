import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { anotherReplica, waitFor, type RunningStack } from '@gateway/testkit';
import { percentile } from './load';

const root = join(__dirname, '../..');

/** How often a starting replica's readiness probe is asked: the figure is this coarse at most. */
const PROBE_EVERY_MS = 20;

/**
 * Each service's time from start to ready, in ms, the median of `starts` starts: one more replica of it at a time,
 * started compiled beside the running stack with the environment the launcher gave the running one (as an orchestrator
 * scales out: new ports, the same database, broker and V8 options), timed from node's spawn to its readiness probe's
 * first 200, then stopped with SIGTERM before the next. Each start finds its schema migrated already, as every start
 * but a release's first does; a Kubernetes pod also runs its init containers first (migrations, the wait for the
 * broker's definitions), which this does not count. Run last: a PIX adapter replica registers its own callback URL
 * at the PSP as it starts, so the PSP's callbacks go to a stopped listener afterwards.
 */
export async function startToReady(
  stack: RunningStack,
  services: readonly string[],
  starts: number,
): Promise<Record<string, number>> {
  const figures: Record<string, number> = {};
  for (const service of services) {
    const times: number[] = [];
    for (let i = 0; i < starts; i++) times.push(await timeOneStart(stack, service));
    figures[service] = Math.round(
      percentile(
        times.sort((a, b) => a - b),
        50,
      ),
    );
  }
  return figures;
}

async function timeOneStart(stack: RunningStack, service: string): Promise<number> {
  const { env, readyUrl, nodeFlags } = await anotherReplica(stack, service);
  const started = performance.now();
  // What `pnpm build` writes for the service (the bench builds before its stack starts), as the fault suite starts it.
  const child = spawn(process.execPath, [...nodeFlags, join(root, 'services', service, 'dist', 'main.js')], {
    cwd: root,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // The end of what it printed on stderr, to say why a start failed.
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    return await waitFor(
      async () => {
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(
            `${service} exited (${child.exitCode ?? child.signalCode}) as it started: ${stderr}`,
          );
        const ok = await fetch(readyUrl)
          .then((r) => r.ok)
          .catch(() => false);
        return ok ? performance.now() - started : undefined;
      },
      { timeoutMs: 60_000, intervalMs: PROBE_EVERY_MS, what: `a new ${service} to be ready` },
    );
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}
