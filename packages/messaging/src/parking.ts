import type { ChannelModel } from 'amqplib';
import { catalog, serviceNames, subscribedEventNames, type ServiceName } from '@gateway/contracts';
import { counter, gauge, type Logger } from '@gateway/observability';
import { withChannel, type BrokerConnection } from './connection';
import {
  FIRST_FAILED_AT,
  LAST_FAILURE,
  PARKED_HEADERS,
  RETRY_FAILURES,
  RETRY_QUEUE,
  withoutBrokerHeaders,
} from './message-headers';
import type { TopologyNames } from './topology';

/** Whether any command of the catalogue is handled by `service` (the gateway handles none). */
function handlesCommands(service: ServiceName): boolean {
  return [...catalog.values()].some((definition) => definition.handledBy === service);
}

/** A parking queue and how many messages it holds. */
export interface ParkedQueue {
  /** The queue its messages came from (and return to when re-driven), e.g. `payment.events`. */
  queue: string;
  parked: number;
}

const messagesRedriven = counter(
  'broker_messages_redriven_total',
  'Parked messages moved back to their queue by an operator',
  ['queue'],
);
const parkedNow = gauge('broker_parked_messages', 'Messages waiting in a parking queue, by source queue', [
  'queue',
]);
const retryBacklog = gauge(
  'broker_retry_backlog_messages',
  'Failed messages waiting in a retry delay queue to be tried again, by delay queue (shared by every service)',
  ['queue'],
);

export interface ParkingOptions {
  names: TopologyNames;
  /** The delay queues' TTLs (RetrySchedule.tiersMs). */
  retryTiersMs: readonly number[];
  logger: Logger;
}

/** The operators' side of failed messages: the parking queues (listed, measured, re-driven) and the retry backlog. */
export class Parking {
  constructor(
    private readonly connection: BrokerConnection,
    private readonly options: ParkingOptions,
  ) {}

  /**
   * The parking queues of `services` (all by default) under this prefix, with how many messages each holds. A queue
   * never declared is left out.
   */
  async listParked(services: readonly ServiceName[] = serviceNames): Promise<ParkedQueue[]> {
    const model = this.connection.requireModel();
    const found: ParkedQueue[] = [];
    for (const queue of this.options.names.consumerQueues(services)) {
      // A missing queue closes the channel: one channel per queue.
      await withChannel(model, async (channel) => {
        try {
          const { messageCount } = await channel.checkQueue(this.options.names.parkingQueue(queue));
          found.push({ queue: this.withoutPrefix(queue), parked: messageCount });
        } catch {
          // Not declared under this prefix.
        }
      });
    }
    return found;
  }

  /**
   * Sets `broker_parked_messages` for the queues `service` consumes, and no other: each service reports its own, so
   * one series per queue, labelled with the service that owns it.
   */
  async measureParked(service: ServiceName): Promise<void> {
    // Every process declares every queue (ADR 0039); a service reports only those it has messages for.
    const consumed = new Set(
      [
        handlesCommands(service) && this.options.names.commandQueue(service),
        subscribedEventNames(service).length > 0 && this.options.names.eventQueue(service),
      ].filter((queue): queue is string => queue !== false),
    );
    // A service declared those queues and their parking queues as it connected (ADR 0039): checked on a channel kept
    // open. One not declared under this prefix (a client that declares only what it consumes) is left out.
    for (const queue of consumed) {
      const parked = await this.connection
        .inspect('gauges', (channel) => channel.checkQueue(this.options.names.parkingQueue(queue)))
        .then(
          ({ messageCount }) => messageCount,
          () => undefined,
        );
      if (parked !== undefined) parkedNow.set({ queue }, parked);
    }
  }

  /** Sets `broker_retry_backlog_messages`: how many failed messages each delay queue holds now. */
  async measureRetryBacklog(): Promise<void> {
    await this.connection.inspect('gauges', async (channel) => {
      for (const delayMs of this.options.retryTiersMs) {
        const queue = this.options.names.delayQueue(delayMs);
        retryBacklog.set({ queue }, (await channel.checkQueue(queue)).messageCount);
      }
    });
  }

  /**
   * Moves the messages parked now (of one queue, named as `listParked` names it, or of all) back to their queue, with
   * a fresh retry budget; returns how many each queue got back. Consumers deduplicate by message id, so a message
   * that had its effect before it was parked has no second one. An RPC command whose caller stopped waiting is not
   * run again. Messages parked again while this runs stay parked.
   */
  async redriveParked(queue?: string): Promise<ParkedQueue[]> {
    const model = this.connection.requireModel();
    const queues = this.options.names
      .consumerQueues(serviceNames)
      .filter((name) => queue === undefined || this.withoutPrefix(name) === queue);
    const moved: ParkedQueue[] = [];
    for (const name of queues) {
      const count = await this.redriveQueue(model, name);
      if (count !== undefined) moved.push({ queue: this.withoutPrefix(name), parked: count });
    }
    return moved;
  }

  private withoutPrefix(queue: string): string {
    return queue.slice(this.options.names.prefix.length);
  }

  /** Moves what `queue`'s parking queue holds now back to `queue`, confirmed one by one; undefined if none exists. */
  private async redriveQueue(model: ChannelModel, queue: string): Promise<number | undefined> {
    const parking = this.options.names.parkingQueue(queue);
    const channel = await model.createConfirmChannel();
    channel.on('error', () => undefined);
    try {
      let count: number;
      try {
        count = (await channel.checkQueue(parking)).messageCount;
      } catch {
        return undefined;
      }
      let moved = 0;
      while (moved < count) {
        const msg = await channel.get(parking, { noAck: false });
        if (!msg) break;
        const headers = withoutBrokerHeaders(msg.properties.headers ?? {});
        for (const name of [RETRY_QUEUE, RETRY_FAILURES, FIRST_FAILED_AT, LAST_FAILURE, ...PARKED_HEADERS])
          delete headers[name];
        await new Promise<void>((resolve, reject) =>
          channel.publish(
            '',
            queue,
            msg.content,
            {
              ...msg.properties,
              persistent: true,
              headers: { ...headers, 'x-redriven-at': new Date().toISOString() },
            },
            (e) => (e ? reject(e instanceof Error ? e : new Error(String(e))) : resolve()),
          ),
        );
        channel.ack(msg);
        moved += 1;
      }
      this.options.logger.info({ queue, moved }, 'parked messages re-driven');
      messagesRedriven.inc({ queue }, moved);
      return moved;
    } finally {
      await channel.close().catch(() => undefined);
    }
  }
}
