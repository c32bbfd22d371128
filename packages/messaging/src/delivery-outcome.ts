import type { Channel, ConsumeMessage } from 'amqplib';
import type { Reply, ReplyError } from '@gateway/contracts';
import { counter, type Logger } from '@gateway/observability';
import type { BrokerConnection } from './connection';
import { BrokerUnavailableError } from './errors';
import { permanentFailureReply } from './failure-kind';
import {
  FIRST_FAILED_AT,
  LAST_FAILURE,
  RETRY_FAILURES,
  RETRY_QUEUE,
  withoutBrokerHeaders,
} from './message-headers';
import { messagesPublished } from './publisher';
import { retryDelayMs, type RetrySchedule } from './retry-schedule';
import type { TopologyNames } from './topology';

/** What an RPC whose command failed transiently, with no time left to retry, is answered: the caller may retry. */
const SERVICE_UNAVAILABLE_REPLY: ReplyError = {
  code: 'SERVICE_UNAVAILABLE',
  message: 'Serviço temporariamente indisponível. Tente novamente.',
};

const messagesParked = counter('broker_messages_parked_total', 'Messages moved to a parking queue', [
  'queue',
]);
const messagesRetried = counter(
  'broker_messages_retried_total',
  'Failed messages sent to a delay queue to be tried again, by queue and delay',
  ['queue', 'delay_ms'],
);

export interface DeliveryOutcomeOptions {
  names: TopologyNames;
  retrySchedule: RetrySchedule;
  /** Attempts a message failing for an unknown reason (likely a bug) gets before it is parked. */
  maxDeliveries: number;
  logger: Logger;
}

/**
 * What becomes of a delivery once its handler has run: the reply its caller waits for, and for a failure a retry
 * later, a refusal, or parking.
 */
export class DeliveryOutcomes {
  constructor(
    private readonly connection: BrokerConnection,
    private readonly options: DeliveryOutcomeOptions,
  ) {}

  /** Answers the caller of a command (a message with `replyTo`); an event has none. */
  async replyIfAsked(msg: ConsumeMessage, reply: Reply<unknown>): Promise<void> {
    const { replyTo, correlationId } = msg.properties;
    const channel = this.connection.publishChannel;
    if (!replyTo || !channel) return;
    messagesPublished.inc({ kind: 'rpc_reply' });
    try {
      channel.publish('', replyTo, Buffer.from(JSON.stringify(reply)), {
        correlationId,
        contentType: 'application/json',
      });
    } catch (err) {
      // The caller times out and retries idempotently.
      this.options.logger.warn({ err: String(err) }, 'reply not sent');
    }
  }

  /**
   * A failure that may pass: the message goes to a delay queue and comes back to `queue` after a growing delay, while
   * the messages behind it flow on. An event (or a command without a caller) is retried until `retry.retryForMs`
   * after its first failure, then parked; an RPC command only while its caller still waits, then it is answered
   * SERVICE_UNAVAILABLE. An unknown failure (likely a bug) gets `maxDeliveries` attempts.
   */
  async retryLater(
    channel: Channel,
    queue: string,
    msg: ConsumeMessage,
    err: unknown,
    { unknownFailure, attemptMs, deadline }: { unknownFailure: boolean; attemptMs: number; deadline: number },
  ): Promise<void> {
    const { retrySchedule } = this.options;
    const headers = msg.properties.headers ?? {};
    const failures = Number(headers[RETRY_FAILURES] ?? 0) + 1;
    const now = Date.now();
    const firstFailedAt = Number(headers[FIRST_FAILED_AT] ?? now);
    const delayMs = retryDelayMs(retrySchedule, failures);
    const outOfAttempts = unknownFailure && failures >= this.options.maxDeliveries;
    if (msg.properties.replyTo) {
      if (outOfAttempts) {
        await this.refuse(channel, queue, msg, err, permanentFailureReply(err), false);
        return;
      }
      if (now + delayMs + attemptMs >= deadline) {
        await this.refuse(channel, queue, msg, err, SERVICE_UNAVAILABLE_REPLY, false);
        return;
      }
    } else if (outOfAttempts) {
      await this.park(channel, queue, msg, `after ${failures} attempts: ${describeFailure(err)}`);
      return;
    } else if (now - firstFailedAt >= retrySchedule.retryForMs) {
      const minutes = Math.round((now - firstFailedAt) / 60_000);
      await this.park(
        channel,
        queue,
        msg,
        `still failing ${minutes} min after the first failure: ${describeFailure(err)}`,
      );
      return;
    }
    this.options.logger.warn(
      { queue, message_id: msg.properties.messageId, err: describeFailure(err), failures, delayMs },
      'handler failed, will be retried',
    );
    try {
      await this.republish('', this.options.names.delayQueue(delayMs), msg, {
        ...withoutBrokerHeaders(headers),
        [RETRY_QUEUE]: queue,
        [RETRY_FAILURES]: String(failures),
        [FIRST_FAILED_AT]: String(firstFailedAt),
        [LAST_FAILURE]: describeFailure(err).slice(0, 2000),
      });
      messagesRetried.inc({ queue, delay_ms: String(delayMs) });
      safeAck(channel, msg);
    } catch {
      // No delay queue now (the broker is going away): back to the queue after a pause, never a hot loop.
      await new Promise((resolve) => setTimeout(resolve, Math.min(delayMs, 1000)));
      safeNack(channel, msg);
    }
  }

  /**
   * Gives up on a message for good. A command is answered with an error at once (its caller is not left to time out
   * and retry) and acked: the caller holds the refusal, so there is nothing left to replay. An event, or a message
   * that exhausted its deliveries, is parked with its reason. Either way it is logged once, without a stack trace.
   */
  async refuse(
    channel: Channel,
    queue: string,
    msg: ConsumeMessage,
    err: unknown,
    reply: ReplyError = permanentFailureReply(err),
    park = !msg.properties.replyTo,
  ): Promise<void> {
    await this.replyIfAsked(msg, { ok: false, error: reply });
    if (park) {
      await this.park(channel, queue, msg, describeFailure(err));
      return;
    }
    this.options.logger.warn(
      { queue, message_id: msg.properties.messageId, reason: describeFailure(err), code: reply.code },
      'command refused',
    );
    safeAck(channel, msg);
  }

  /** Moves a message to its queue's parking queue with the reason, then acks it so the queue moves on. */
  private async park(channel: Channel, queue: string, msg: ConsumeMessage, reason: string): Promise<void> {
    this.options.logger.error({ queue, message_id: msg.properties.messageId, reason }, 'message parked');
    try {
      await this.republish(this.options.names.deadLetterExchange, queue, msg, {
        ...msg.properties.headers,
        'x-parked-reason': reason.slice(0, 2000),
        'x-parked-at': new Date().toISOString(),
        'x-parked-from': queue,
      });
      messagesParked.inc({ queue });
      safeAck(channel, msg);
    } catch {
      // Could not park it now: leave it to be redelivered (the broker's delivery limit is the last resort).
      safeNack(channel, msg);
    }
  }

  /** Publishes a copy of a received message (same body and properties, new headers), confirmed. */
  private async republish(
    exchange: string,
    routingKey: string,
    msg: ConsumeMessage,
    headers: Record<string, unknown>,
  ): Promise<void> {
    const publisher = this.connection.publishChannel;
    if (!publisher) throw new BrokerUnavailableError();
    messagesPublished.inc({ kind: 'copy' });
    await new Promise<void>((resolve, reject) =>
      publisher.publish(
        exchange,
        routingKey,
        msg.content,
        { ...msg.properties, persistent: true, headers },
        (e) => (e ? reject(e instanceof Error ? e : new Error(String(e))) : resolve()),
      ),
    );
  }
}

/** One line for a failure: its name and message, never a stack trace. */
export function describeFailure(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

export function safeAck(channel: Channel, msg: ConsumeMessage): void {
  try {
    channel.ack(msg);
  } catch {
    // Channel already closed: the message will be redelivered and deduplicated by the inbox.
  }
}

function safeNack(channel: Channel, msg: ConsumeMessage): void {
  try {
    channel.nack(msg, false, true);
  } catch {
    // Channel already closed: the broker requeues it anyway.
  }
}
