import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { freePort } from '@gateway/testkit';
import { letTimePass, waitFor } from '@gateway/testkit-core';

const run = promisify(execFile);

/** The Debian package's own scripts: its /usr/sbin wrappers switch to the rabbitmq user, whose HOME is not ours. */
const PACKAGE_BIN = '/usr/lib/rabbitmq/bin';
const tool = (name: string): string => (existsSync(join(PACKAGE_BIN, name)) ? join(PACKAGE_BIN, name) : name);

const STARTUP_TIMEOUT_MS = 90_000;

export interface QueueDepth {
  name: string;
  messages: number;
}

/** A queue of the broker and the node its leader (a quorum queue's) or its process (a classic queue's) is on. */
export interface QueueLeader {
  name: string;
  leader: string;
  messages: number;
}

/** One rabbitmq-server of a private broker: own node name, ports, data directory, pid file. */
export class BrokerNode {
  private constructor(
    readonly node: string,
    readonly url: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly dir: string,
  ) {}

  /** Prepares the node's directories and environment (`cookie`: the Erlang cookie every node of a cluster shares). */
  static async create(parent: string, cookie: string): Promise<BrokerNode> {
    const dir = mkdtempSync(join(parent, 'node-'));
    const [amqpPort, distPort] = [await freePort(), await freePort()];
    const node = `faults-${randomBytes(4).toString('hex')}@localhost`;
    for (const sub of ['home', 'mnesia', 'log']) mkdirSync(join(dir, sub));
    // The node and the CLI read the cookie from HOME: the same one in each node's HOME lets them talk to each other.
    writeFileSync(join(dir, 'home', '.erlang.cookie'), cookie, { mode: 0o400 });
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
    return new BrokerNode(node, `amqp://guest:guest@127.0.0.1:${amqpPort}`, env, dir);
  }

  /** Starts the node's Erlang VM and RabbitMQ, and waits until it runs. */
  async start(): Promise<void> {
    await run(tool('rabbitmq-server'), ['-detached'], { env: this.env });
    await this.awaitStartup();
  }

  /** Makes this (freshly started) node a member of `seed`'s cluster. */
  async join(seed: BrokerNode): Promise<void> {
    await this.ctl('stop_app');
    await this.ctl('join_cluster', seed.node);
    await this.ctl('start_app');
    await this.awaitStartup();
  }

  /**
   * Kills the node's VM with SIGKILL, as a crashed machine would: its clients' connections break without a protocol
   * close, and its cluster peers see it gone.
   */
  async kill(): Promise<void> {
    const pid = Number(readFileSync(join(this.dir, 'node.pid'), 'utf8').trim());
    process.kill(pid, 'SIGKILL');
    await waitFor(() => !alive(pid), { timeoutMs: 10_000, intervalMs: 100, what: `${this.node} to die` });
  }

  /** `rabbitmqctl stop_app`, a pause, `start_app`: every connection and channel of the services is dropped. */
  async restartApp(downMs: number): Promise<void> {
    await this.ctl('stop_app');
    await letTimePass(downMs);
    await this.ctl('start_app');
    await this.awaitStartup();
  }

  /** Stops the node (the whole VM); `remove` deletes its data too. */
  async stop({ remove }: { remove: boolean }): Promise<void> {
    await this.ctl('stop').catch(() => undefined);
    if (remove) rmSync(this.dir, { recursive: true, force: true });
  }

  async awaitStartup(): Promise<void> {
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

  async ctl(...args: string[]): Promise<string> {
    const { stdout } = await run(tool('rabbitmqctl'), ['-n', this.node, ...args], { env: this.env });
    return stdout;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** `rabbitmqctl list_queues` columns, one queue a line. */
function rows(out: string, columns: number): string[][] {
  return out
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((cols) => cols.length === columns && /^\d+$/.test(cols[columns - 1]!));
}

/**
 * A RabbitMQ broker of its own: one node, or a cluster of several (own node names, ports, data directories and a
 * shared Erlang cookie, joined with `rabbitmqctl join_cluster`), so a fault test can stop and start nodes without
 * touching the broker every other test uses. Its quorum queues have a member on each node (RabbitMQ 3.10's default
 * group size, 3, covers a three-node cluster).
 */
export class PrivateBroker {
  /** The nodes a test has stopped (by index), not yet started again. */
  private readonly down = new Set<number>();
  /** Every node killed so far, in turn (node names). */
  readonly killed: string[] = [];

  private constructor(
    readonly nodes: readonly BrokerNode[],
    private readonly dir: string,
  ) {}

  static async start({ nodes = 1 }: { nodes?: number } = {}): Promise<PrivateBroker> {
    const dir = mkdtempSync(join(tmpdir(), 'faults-rabbitmq-'));
    const cookie = randomBytes(20).toString('hex').toUpperCase();
    const members: BrokerNode[] = [];
    try {
      for (let i = 0; i < nodes; i += 1) members.push(await BrokerNode.create(dir, cookie));
      // One at a time: a VM start takes most of a core for seconds.
      for (const member of members) await member.start();
      for (const member of members.slice(1)) await member.join(members[0]!);
    } catch (err) {
      await Promise.all(members.map((member) => member.stop({ remove: false })));
      rmSync(dir, { recursive: true, force: true });
      throw err;
    }
    return new PrivateBroker(members, dir);
  }

  /** The first node's address (a tool that needs one; every node serves the whole cluster). */
  get url(): string {
    return this.running().url;
  }

  /** Every node's address, as AMQP_URLS lists them. */
  get urls(): string[] {
    return this.nodes.map((node) => node.url);
  }

  /** A node nobody stopped, to ask about the cluster. */
  running(): BrokerNode {
    const node = this.nodes.find((_, i) => !this.down.has(i));
    if (!node) throw new Error('every node of the private broker is down');
    return node;
  }

  /** `rabbitmqctl stop_app`, a pause, `start_app` on every node: every connection of the services is dropped. */
  async restart(downMs: number): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.restartApp(downMs)));
  }

  /** Kills node `index` (SIGKILL of its VM); `startNode` brings it back. */
  async killNode(index: number): Promise<void> {
    this.down.add(index);
    this.killed.push(this.nodes[index]!.node);
    await this.nodes[index]!.kill();
  }

  /** Starts node `index` again (its data kept: it rejoins the cluster) and waits until its quorum members run. */
  async startNode(index: number): Promise<void> {
    await this.nodes[index]!.start();
    this.down.delete(index);
  }

  async queueDepths(): Promise<QueueDepth[]> {
    const out = await this.running().ctl('list_queues', 'name', 'messages', '--quiet', '--no-table-headers');
    return rows(out, 2).map(([name, messages]) => ({ name: name!, messages: Number(messages) }));
  }

  /**
   * How many consumers the connections named `connectionName` (a service names its connections `<service>:<pid>`)
   * have on this broker now.
   */
  async consumersOf(connectionName: string): Promise<number> {
    const connections = new Set(await this.connectionsNamed(connectionName));
    const out = await this.running().ctl(
      'list_channels',
      'connection',
      'consumer_count',
      '--quiet',
      '--no-table-headers',
    );
    return rows(out, 2)
      .filter(([connection]) => connections.has(connection!))
      .reduce((sum, [, consumers]) => sum + Number(consumers), 0);
  }

  /**
   * Closes, from the broker's side, every connection named `connectionName`: its consumers are gone and what they had
   * not acked goes back to its queue, as when the process behind them is gone.
   */
  async closeConnectionsOf(connectionName: string): Promise<number> {
    const connections = await this.connectionsNamed(connectionName);
    for (const pid of connections)
      await this.running().ctl('close_connection', pid, 'closed by the fault suite');
    return connections.length;
  }

  /** Deletes a queue, whatever it holds: the broker forgets it and its bindings as if nobody had declared them. */
  async deleteQueue(name: string): Promise<void> {
    await this.running().ctl('delete_queue', name);
  }

  /** The broker's pids (`<node.1.2.3>`, as close_connection takes them) of the connections named `connectionName`. */
  private async connectionsNamed(connectionName: string): Promise<string[]> {
    const out = await this.running().ctl(
      'list_connections',
      'pid',
      'client_properties',
      '--quiet',
      '--no-table-headers',
    );
    // A line: the pid, a tab, the client's properties as Erlang terms ({"connection_name","<service>:<pid>"}, ...).
    return out
      .split('\n')
      .filter((line) => line.includes(`{"connection_name","${connectionName}"}`))
      .map((line) => line.split('\t')[0]!);
  }

  /** Each queue's leader node (quorum queues) and depth. */
  async queueLeaders(): Promise<QueueLeader[]> {
    const out = await this.running().ctl(
      'list_queues',
      'name',
      'leader',
      'messages',
      '--quiet',
      '--no-table-headers',
    );
    return rows(out, 3).map(([name, leader, messages]) => ({
      name: name!,
      leader: leader!,
      messages: Number(messages),
    }));
  }

  /**
   * The running node that leads the busiest queues, not one of `except` (node names): each queue but the parking ones
   * counts one, plus the messages it holds, for the node of its leader. Its index in `nodes`.
   */
  async busiestLeader(except: ReadonlySet<string> = new Set()): Promise<number> {
    const load = new Map<string, number>();
    for (const queue of await this.queueLeaders())
      if (!queue.name.endsWith('.parking'))
        load.set(queue.leader, (load.get(queue.leader) ?? 0) + 1 + queue.messages);
    const candidates = this.nodes
      .map((node, index) => ({ index, node: node.node, load: load.get(node.node) ?? 0 }))
      .filter((c) => !this.down.has(c.index) && !except.has(c.node))
      .sort((a, b) => b.load - a.load);
    if (candidates.length === 0) throw new Error('no running node left to choose from');
    return candidates[0]!.index;
  }

  /** Each queue's quorum members (node names). */
  async queueMembers(): Promise<Map<string, string[]>> {
    const out = await this.running().ctl('list_queues', 'name', 'members', '--quiet', '--no-table-headers');
    const members = new Map<string, string[]>();
    for (const line of out.split('\n')) {
      const match = /^(\S+)\s+\[(.*)\]\s*$/.exec(line.trim());
      if (match)
        members.set(
          match[1]!,
          [...match[2]!.matchAll(/[\w.-]+@[\w.-]+/g)].map((m) => m[0]),
        );
    }
    return members;
  }

  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.stop({ remove: false })));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
