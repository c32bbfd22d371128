import type { Socket } from 'node:net';
import amqp, { type Channel, type ChannelModel, type ConfirmChannel } from 'amqplib';
import type { Logger } from '@gateway/observability';
import { BrokerUnavailableError } from './errors';

/** How long one broker address is tried before the next (the TCP connection and the AMQP handshake's start). */
const CONNECT_TIMEOUT_MS = 10_000;

export interface ConnectionOptions {
  /**
   * The broker's addresses: one node, or the nodes of a cluster (AMQP_URLS). Each connection goes to one of them; when
   * its node goes away, the next one is tried.
   */
  urls: readonly string[];
  /** Shown in the RabbitMQ management UI and `rabbitmqctl list_connections`. */
  connectionName: string;
  logger: Logger;
  /** Cap of the reconnect backoff. */
  maxReconnectDelayMs?: number;
}

/**
 * Readies a new connection before anything uses it (topology, reply queue, consumers); if it fails, the connection is
 * closed and tried again.
 */
export type ConnectionSetUp = (model: ChannelModel, publishChannel: ConfirmChannel) => Promise<void>;

/**
 * The connection to RabbitMQ and its confirm channel (publishes, RPC requests and replies), healing itself: a lost
 * connection is opened again with jittered backoff and readied by `setUp` before it counts as connected. While there
 * is none, `model` and `publishChannel` are undefined and what needs them fails fast.
 *
 * With several addresses (a cluster's nodes), the first connection starts at a random one, so a fleet of processes
 * spreads over the nodes; each attempt tries every address in turn before it backs off, and a lost connection starts
 * again at the address after the one it had, so the node that went away is tried last.
 */
export class BrokerConnection {
  private current?: ChannelModel;
  private currentUrl?: string;
  /** The address the next attempt starts at. */
  private nextAddress: number;
  private confirmChannel?: ConfirmChannel;
  /** The channels kept open for `inspect`, by use, on the connection now. */
  private readonly inspectionChannels = new Map<string, Promise<Channel>>();
  private readonly connectedWaiters: Array<() => void> = [];
  private closing = false;
  private reconnectAttempt = 0;
  private reconnectTimer?: NodeJS.Timeout;

  constructor(
    private readonly options: ConnectionOptions,
    private readonly setUp: ConnectionSetUp,
  ) {
    if (options.urls.length === 0) throw new Error('BrokerConnection needs at least one broker address');
    this.nextAddress = Math.floor(Math.random() * options.urls.length);
  }

  /** Connects (retrying with backoff until it succeeds or `disconnect` is called). */
  async open(): Promise<void> {
    this.scheduleConnect(0);
    if (this.connected) return;
    await new Promise<void>((resolve) => this.connectedWaiters.push(resolve));
  }

  get model(): ChannelModel | undefined {
    return this.current;
  }

  get publishChannel(): ConfirmChannel | undefined {
    return this.confirmChannel;
  }

  /** The address of the node this connection is on (undefined while there is none). */
  get url(): string | undefined {
    return this.currentUrl;
  }

  get connected(): boolean {
    return this.confirmChannel !== undefined;
  }

  /** The connection now, or BrokerUnavailableError. */
  requireModel(): ChannelModel {
    if (!this.current) throw new BrokerUnavailableError();
    return this.current;
  }

  /**
   * Runs `use` on a channel kept open for that `purpose` (the readiness check, the gauges), opened on first use and
   * again after it closes. A check that runs every few seconds would otherwise open and close a channel each time,
   * and amqplib records a stack trace at every close, which the first time maps through the whole compiled file's
   * source map (ADR 0046). For checks of queues that exist (the process declared them): a failure such as a missing
   * queue closes the channel, and whatever else used it at that moment fails too (`withChannel` isolates each use).
   */
  async inspect<T>(purpose: string, use: (channel: Channel) => Promise<T>): Promise<T> {
    const model = this.requireModel();
    let opened = this.inspectionChannels.get(purpose);
    if (!opened) {
      // Forgotten once closed (or never opened), unless a newer one took its place.
      const forget = () => {
        if (this.inspectionChannels.get(purpose) === opening) this.inspectionChannels.delete(purpose);
      };
      const opening = model.createChannel().then((channel) => {
        channel.on('error', () => undefined);
        channel.once('close', forget);
        return channel;
      });
      opening.catch(forget);
      this.inspectionChannels.set(purpose, opening);
      opened = opening;
    }
    return use(await opened);
  }

  /**
   * Closes `channels`, then the confirm channel, each with what it sent last (acks, RPC replies), and reconnects no
   * more: amqplib writes the channels' frames in turns, so closing the connection right after them can overtake them,
   * and the broker would deliver an acked message again or drop a reply.
   */
  async closeChannels(channels: Channel[]): Promise<void> {
    this.closing = true;
    await Promise.all(
      [...channels, ...(this.confirmChannel ? [this.confirmChannel] : [])].map((channel) => {
        channel.removeAllListeners('close');
        return channel.close().catch(() => undefined);
      }),
    );
  }

  /** Closes the connection at once; it reconnects no more. */
  async disconnect(): Promise<void> {
    this.closing = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    const model = this.current;
    this.forget();
    await model?.close().catch(() => undefined);
  }

  /** Drops the TCP socket without a protocol close, as a network failure would. */
  dropForTesting(): void {
    const stream = (this.current?.connection as unknown as { stream?: Socket } | undefined)?.stream;
    stream?.destroy(new Error('connection dropped (simulated network failure)'));
  }

  private scheduleConnect(delayMs: number): void {
    if (this.closing) return;
    this.reconnectTimer = setTimeout(() => {
      this.connectOnce().catch((err: unknown) => {
        this.reconnectAttempt += 1;
        const cap = this.options.maxReconnectDelayMs ?? 5000;
        const backoff = Math.min(cap, 100 * 2 ** this.reconnectAttempt);
        const delay = backoff / 2 + Math.random() * (backoff / 2);
        this.options.logger.warn(
          { err: String(err), delayMs: Math.round(delay) },
          'broker connect failed, retrying',
        );
        this.scheduleConnect(delay);
      });
    }, delayMs);
  }

  /** One attempt: each address in turn from `nextAddress`, until one is connected and readied. */
  private async connectOnce(): Promise<void> {
    const { urls } = this.options;
    const failures: string[] = [];
    for (let tried = 0; tried < urls.length; tried += 1) {
      const index = this.nextAddress;
      this.nextAddress = (index + 1) % urls.length;
      try {
        await this.connectTo(urls[index]!);
        // The next connection (after this one is lost) starts at the following node.
        return;
      } catch (err) {
        if (this.closing) throw err;
        failures.push(urls.length > 1 ? `${redacted(urls[index]!)}: ${String(err)}` : String(err));
      }
    }
    throw new Error(failures.join('; '));
  }

  private async connectTo(address: string): Promise<void> {
    const url = new URL(address);
    if (!url.searchParams.has('heartbeat')) url.searchParams.set('heartbeat', '10');
    const model = await amqp.connect(url.toString(), {
      noDelay: true,
      // A node whose machine is gone does not refuse, it stays silent: without a bound, trying it would wait for the
      // operating system's TCP timeout (minutes) before the next address is tried.
      timeout: CONNECT_TIMEOUT_MS,
      clientProperties: { connection_name: this.options.connectionName },
    });
    try {
      model.on('error', (err: unknown) =>
        this.options.logger.warn({ err: String(err) }, 'broker connection error'),
      );
      model.on('close', () => this.onDisconnected(model));
      const publishChannel = await model.createConfirmChannel();
      publishChannel.on('error', () => undefined);
      // A channel closed by the server (e.g. a protocol error) means our state is unknown: start over cleanly.
      publishChannel.on('close', () => model.close().catch(() => undefined));
      await this.setUp(model, publishChannel);
      this.current = model;
      this.currentUrl = address;
      this.confirmChannel = publishChannel;
    } catch (err) {
      await model.close().catch(() => undefined);
      throw err;
    }
    this.reconnectAttempt = 0;
    this.options.logger.info(
      { connection: this.options.connectionName, broker: redacted(address) },
      'broker connected',
    );
    for (const resolve of this.connectedWaiters.splice(0)) resolve();
  }

  private onDisconnected(model: ChannelModel): void {
    if (this.current !== model && this.current !== undefined) return;
    const lost = this.currentUrl;
    this.forget();
    if (this.closing) return;
    this.options.logger.warn({ broker: lost && redacted(lost) }, 'broker connection lost, reconnecting');
    this.scheduleConnect(100);
  }

  private forget(): void {
    this.inspectionChannels.clear();
    this.current = undefined;
    this.currentUrl = undefined;
    this.confirmChannel = undefined;
  }
}

/** A broker address as logs show it: host and port, without the credentials. */
function redacted(address: string): string {
  const url = new URL(address);
  return `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}`;
}

/** Runs `use` on a channel of its own (an error, such as a missing queue, closes only that channel), then closes it. */
export async function withChannel<T>(model: ChannelModel, use: (channel: Channel) => Promise<T>): Promise<T> {
  const channel = await model.createChannel();
  channel.on('error', () => undefined);
  try {
    return await use(channel);
  } finally {
    await channel.close().catch(() => undefined);
  }
}
