import type { Socket } from 'node:net';
import amqp, { type Channel, type ChannelModel, type ConfirmChannel } from 'amqplib';
import type { Logger } from '@gateway/observability';
import { BrokerUnavailableError } from './errors';

export interface ConnectionOptions {
  url: string;
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
 */
export class BrokerConnection {
  private current?: ChannelModel;
  private confirmChannel?: ConfirmChannel;
  private readonly connectedWaiters: Array<() => void> = [];
  private closing = false;
  private reconnectAttempt = 0;
  private reconnectTimer?: NodeJS.Timeout;

  constructor(
    private readonly options: ConnectionOptions,
    private readonly setUp: ConnectionSetUp,
  ) {}

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

  get connected(): boolean {
    return this.confirmChannel !== undefined;
  }

  /** The connection now, or BrokerUnavailableError. */
  requireModel(): ChannelModel {
    if (!this.current) throw new BrokerUnavailableError();
    return this.current;
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
    this.current = undefined;
    this.confirmChannel = undefined;
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

  private async connectOnce(): Promise<void> {
    const url = new URL(this.options.url);
    if (!url.searchParams.has('heartbeat')) url.searchParams.set('heartbeat', '10');
    const model = await amqp.connect(url.toString(), {
      noDelay: true,
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
      this.confirmChannel = publishChannel;
    } catch (err) {
      await model.close().catch(() => undefined);
      throw err;
    }
    this.reconnectAttempt = 0;
    this.options.logger.info({ connection: this.options.connectionName }, 'broker connected');
    for (const resolve of this.connectedWaiters.splice(0)) resolve();
  }

  private onDisconnected(model: ChannelModel): void {
    if (this.current !== model && this.current !== undefined) return;
    this.current = undefined;
    this.confirmChannel = undefined;
    if (this.closing) return;
    this.options.logger.warn('broker connection lost, reconnecting');
    this.scheduleConnect(100);
  }
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
