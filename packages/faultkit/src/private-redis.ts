import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { freePort } from '@gateway/testkit';
import { waitFor } from '@gateway/testkit-core';

const portAnswers = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** A redis-server of its own on a free port, without persistence, that a fault test may stop and start again. */
export class PrivateRedis {
  private process: ChildProcess | undefined;

  private constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await freePort());
    await redis.resume();
    return redis;
  }

  /** Starts the server (again) on the same port. */
  async resume(): Promise<void> {
    this.process = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    await waitFor(async () => (await portAnswers(this.port)) || undefined, {
      timeoutMs: 15_000,
      intervalMs: 100,
      what: `redis-server on port ${this.port}`,
    });
  }

  /** Stops the server: every client's connection drops and new ones are refused until `resume`. */
  async stop(): Promise<void> {
    const running = this.process;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  }
}
