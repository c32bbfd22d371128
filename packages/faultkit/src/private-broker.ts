import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { freePort } from '@gateway/testkit';
import { letTimePass } from '@gateway/testkit-core';

const run = promisify(execFile);

/** The Debian package's own scripts: its /usr/sbin wrappers switch to the rabbitmq user, whose HOME is not ours. */
const PACKAGE_BIN = '/usr/lib/rabbitmq/bin';
const tool = (name: string): string => (existsSync(join(PACKAGE_BIN, name)) ? join(PACKAGE_BIN, name) : name);

const STARTUP_TIMEOUT_MS = 90_000;

export interface QueueDepth {
  name: string;
  messages: number;
}

/**
 * A RabbitMQ node of its own (own node name, ports, data and cookie), so a fault test can stop and start the broker
 * without touching the one every other test uses.
 */
export class PrivateBroker {
  private constructor(
    readonly node: string,
    readonly url: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly dir: string,
  ) {}

  static async start(): Promise<PrivateBroker> {
    const dir = mkdtempSync(join(tmpdir(), 'faults-rabbitmq-'));
    const [amqpPort, distPort] = [await freePort(), await freePort()];
    const node = `faults-${randomBytes(4).toString('hex')}@localhost`;
    for (const sub of ['home', 'mnesia', 'log']) mkdirSync(join(dir, sub));
    // No plugins: the CLI and AMQP are all this node needs.
    writeFileSync(join(dir, 'enabled_plugins'), '[].\n');
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: join(dir, 'home'),
      RABBITMQ_NODENAME: node,
      RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
      RABBITMQ_NODE_PORT: String(amqpPort),
      RABBITMQ_DIST_PORT: String(distPort),
      RABBITMQ_MNESIA_BASE: join(dir, 'mnesia'),
      RABBITMQ_LOG_BASE: join(dir, 'log'),
      RABBITMQ_PID_FILE: join(dir, 'node.pid'),
      RABBITMQ_ENABLED_PLUGINS_FILE: join(dir, 'enabled_plugins'),
      RABBITMQ_CONFIG_FILE: join(dir, 'none'),
    };
    const broker = new PrivateBroker(node, `amqp://guest:guest@127.0.0.1:${amqpPort}`, env, dir);
    await run(tool('rabbitmq-server'), ['-detached'], { env });
    await broker.awaitStartup();
    return broker;
  }

  /** `rabbitmqctl stop_app`, a pause, `start_app`: every connection and channel of the services is dropped. */
  async restart(downMs: number): Promise<void> {
    await this.ctl('stop_app');
    await letTimePass(downMs);
    await this.ctl('start_app');
    await this.awaitStartup();
  }

  async queueDepths(): Promise<QueueDepth[]> {
    const out = await this.ctl('list_queues', 'name', 'messages', '--quiet', '--no-table-headers');
    return out
      .split('\n')
      .map((line) => line.trim().split(/\s+/))
      .filter((cols) => cols.length === 2 && /^\d+$/.test(cols[1]!))
      .map(([name, messages]) => ({ name: name!, messages: Number(messages) }));
  }

  /**
   * How many consumers the connections named `connectionName` (a service names its connections `<service>:<pid>`)
   * have on this broker now.
   */
  async consumersOf(connectionName: string): Promise<number> {
    const json = async (...args: string[]) =>
      JSON.parse((await this.ctl(...args, '--formatter', 'json')) || '[]') as Array<Record<string, unknown>>;
    const connections = new Set(
      (await json('list_connections', 'pid', 'client_properties'))
        // The client's properties read as [name, type, value] triples.
        .filter((c) =>
          (c.client_properties as unknown[][]).some(
            ([name, , value]) => name === 'connection_name' && value === connectionName,
          ),
        )
        .map((c) => String(c.pid)),
    );
    return (await json('list_channels', 'connection', 'consumer_count'))
      .filter((c) => connections.has(String(c.connection)))
      .reduce((sum, c) => sum + Number(c.consumer_count), 0);
  }

  async stop(): Promise<void> {
    await this.ctl('stop').catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async awaitStartup(): Promise<void> {
    const deadline = Date.now() + STARTUP_TIMEOUT_MS;
    // Right after `-detached` the node may not be registered yet: the CLI then fails at once, so ask again.
    for (;;) {
      try {
        await this.ctl('await_startup', '--timeout', '30');
        return;
      } catch (err) {
        if (Date.now() > deadline)
          throw new Error(`RabbitMQ node ${this.node} did not start: ${String(err)}`);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }

  private async ctl(...args: string[]): Promise<string> {
    const { stdout } = await run(tool('rabbitmqctl'), ['-n', this.node, ...args], { env: this.env });
    return stdout;
  }
}
