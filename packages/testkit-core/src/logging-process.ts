import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { longRunningNode } from '@gateway/config';

const root = join(__dirname, '../../..');

/** A process of ours run the way the launcher runs one, its JSON log lines (stdout) collected as they come. */
export interface LoggingProcess {
  child: ChildProcess;
  lines: Array<Record<string, unknown>>;
  /** Its log lines whose `msg` is this. */
  logged(msg: string): Array<Record<string, unknown>>;
  /** Its exit code (null when a signal ended it). */
  exited: Promise<number | null>;
}

/**
 * Runs `entry` (a path from the repository root, e.g. `services/api-gateway/src/main.ts`) with `args` under node with
 * tsx and the V8 heap and C library settings, as the launcher does, with `env` and nothing else; its stderr goes to the
 * test's.
 */
export function startLoggingProcess(
  entry: string,
  env: Record<string, string>,
  args: string[] = [],
): LoggingProcess {
  const node = longRunningNode(['--import', 'tsx', join(root, entry), ...args], env);
  const child = spawn(process.execPath, node.args, {
    cwd: root,
    env: node.env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: Array<Record<string, unknown>> = [];
  let partial = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const complete = (partial + chunk.toString()).split('\n');
    partial = complete.pop() ?? '';
    for (const line of complete) if (line.startsWith('{')) lines.push(JSON.parse(line));
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, lines, logged: (msg) => lines.filter((line) => line.msg === msg), exited };
}
