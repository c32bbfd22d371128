import { spawn } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, infrastructureUrls, waitFor } from '@gateway/testkit';

/** The two one-process yardsticks: the naive server (bench/baseline/server.ts) and the same-work one. */
export type YardstickKind = 'naive' | 'same-work';

const entries: Record<YardstickKind, string> = {
  naive: 'server.ts',
  'same-work': 'same-work-server.ts',
};

export interface BaselineProcess {
  kind: YardstickKind;
  url: string;
  databaseUrl: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts a one-process yardstick on a fresh database of its own, as its own node process (its CPU is its own).
 * `env` adds to its variables (the same-work server's PSP).
 */
export async function startBaseline(
  kind: YardstickKind = 'naive',
  env: Record<string, string> = {},
): Promise<BaselineProcess> {
  const server = new URL(infrastructureUrls().databaseUrl);
  const database = `bench_${kind.replace('-', '_')}_${process.pid}`;
  const admin = new pg.Client({ connectionString: server.toString() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${database}`);
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  const databaseUrl = new URL(server.toString());
  databaseUrl.pathname = `/${database}`;
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, '../baseline', entries[kind])], {
    env: {
      PATH: process.env.PATH ?? '',
      ...env,
      BASELINE_PORT: String(port),
      BASELINE_DATABASE_URL: databaseUrl.toString(),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitFor(() => output.includes('listening') || child.exitCode !== null, {
    timeoutMs: 30_000,
    what: `the ${kind} server to listen`,
  });
  if (child.exitCode !== null) throw new Error(`the ${kind} server exited (${child.exitCode})`);
  return {
    kind,
    url: `http://127.0.0.1:${port}`,
    databaseUrl: databaseUrl.toString(),
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      const cleanup = new pg.Client({ connectionString: server.toString() });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${database}`);
      await cleanup.end();
    },
  };
}
