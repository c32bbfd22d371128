import { spawn } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, infrastructureUrls, waitFor } from '@gateway/testkit';

export interface BaselineProcess {
  url: string;
  databaseUrl: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts the one-process baseline on a fresh database of its own, as its own node process (its CPU is its own). */
export async function startBaseline(): Promise<BaselineProcess> {
  const server = new URL(infrastructureUrls().databaseUrl);
  const database = `bench_baseline_${process.pid}`;
  const admin = new pg.Client({ connectionString: server.toString() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${database}`);
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  const databaseUrl = new URL(server.toString());
  databaseUrl.pathname = `/${database}`;
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, '../baseline/server.ts')], {
    env: {
      PATH: process.env.PATH ?? '',
      BASELINE_PORT: String(port),
      BASELINE_DATABASE_URL: databaseUrl.toString(),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitFor(() => output.includes('listening') || child.exitCode !== null, {
    timeoutMs: 30_000,
    what: 'the baseline server to listen',
  });
  if (child.exitCode !== null) throw new Error(`the baseline server exited (${child.exitCode})`);
  return {
    url: `http://127.0.0.1:${port}`,
    databaseUrl: databaseUrl.toString(),
    pid: child.pid!,
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      const cleanup = new pg.Client({ connectionString: server.toString() });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${database}`);
      await cleanup.end();
    },
  };
}
