import Joi from 'joi';
import { defineCommand, type CommandDefinition, type EventDefinition, type ServiceName } from './message';
import { isoDate } from './common';
import { publicPaymentEvents } from './events';
import { publicRefundEvents } from './refund-messages';
import { publicDisputeEvents } from './dispute-messages';
import { publicSubscriptionEvents } from './subscription-commands';
import { publicPayoutEvents } from './payout-messages';

/**
 * A service's event log: the events it emitted, in the order of their outbox positions (docs/adr/0040). A reader
 * that missed a message on the broker reads it here, from the last position it holds, page by page.
 */

/** An outbox position: a positive bigint, as decimal digits ('0' before the first). */
const position = Joi.string().pattern(/^(0|[1-9][0-9]{0,18})$/);

/**
 * Asks for every public event of the log, whatever its name: the owner answers each event a webhook may receive in its
 * release (never its internal events or commands), so a reader that meets a name it does not know (a newer release
 * emits it) can stop there instead of being moved past it. Sent with the names the reader knows, for an older owner.
 */
export const EVERY_EVENT_NAME = '*';

/** Most entries one page holds. */
export const EVENT_LOG_PAGE_MAX = 1000;

export interface ReadEventLog {
  /** The last position the reader holds: entries after it are answered. */
  after_position: string;
  limit: number;
  /**
   * Only entries recorded at least this long ago (by the owner's clock) are answered, and none after an entry too
   * young. Whatever this is, the owner answers nothing at or after an entry an open transaction could still precede
   * (a position taken by a transaction still open is not visible yet, and must not be stepped over).
   */
  settled_seconds: number;
  /**
   * Only events of these names are answered (the positions of the others are passed over all the same), and every
   * public event of the owner's release when the names hold `EVERY_EVENT_NAME` (an owner older than that answers the
   * other names it holds only).
   */
  names: string[];
}

export interface EventLogEntry {
  position: string;
  /** The event's versioned name (`payment.confirmed.v1`). */
  name: string;
  /** The event's payload as it was published: the reader validates it against that event's contract. */
  payload: Record<string, unknown>;
  recorded_at: string;
}

export interface EventLogPage {
  entries: EventLogEntry[];
  /** Where the next page starts: past every settled position read, the named events' or not. */
  next_position: string;
  /** More settled entries wait after `next_position`. */
  has_more: boolean;
  /**
   * When the first entry after `next_position` that is not answerable yet was recorded (too young, or behind a
   * transaction still open); absent when none waits. How far behind a reader that read everything answered still is:
   * a log held back by a transaction left open shows as a lag that grows (an owner older than this field sends none).
   */
  held_since?: string;
}

const readEventLogSchema = Joi.object<ReadEventLog>({
  after_position: position.required(),
  limit: Joi.number().integer().min(1).max(EVENT_LOG_PAGE_MAX).required(),
  settled_seconds: Joi.number().min(0).max(86_400).required(),
  names: Joi.array().items(Joi.string().max(200)).max(100).required(),
});

const eventLogPageSchema = Joi.object<EventLogPage>({
  entries: Joi.array()
    .items(
      Joi.object<EventLogEntry>({
        position: position.required(),
        name: Joi.string().required(),
        payload: Joi.object().unknown(true).required(),
        recorded_at: isoDate.required(),
      }),
    )
    .required(),
  next_position: position.required(),
  has_more: Joi.boolean().required(),
  held_since: isoDate,
});

function eventLogCommand(service: ServiceName): CommandDefinition<ReadEventLog, EventLogPage> {
  return defineCommand<ReadEventLog, EventLogPage>(
    `${service}.event-log.read.v1`,
    service,
    readEventLogSchema,
    eventLogPageSchema,
    [],
  );
}

/** The payment service's log: its payments', refunds' and disputes' events. */
export const readPaymentEventLog = eventLogCommand('payment');
/** The ledger's log: its payouts' events. */
export const readLedgerEventLog = eventLogCommand('ledger');

/** The names of the public events a log holds (what an owner answers for `EVERY_EVENT_NAME`). */
export function publicEventNamesOf(command: CommandDefinition<ReadEventLog, EventLogPage>): string[] {
  return (publicEventLogs.find((log) => log.command.name === command.name)?.events ?? []).map(
    (event) => event.name,
  );
}

/** Which log holds each public event: every event a webhook can receive is in exactly one. */
export const publicEventLogs: ReadonlyArray<{
  command: CommandDefinition<ReadEventLog, EventLogPage>;
  events: ReadonlyArray<EventDefinition<unknown>>;
}> = [
  {
    command: readPaymentEventLog,
    events: [
      ...publicPaymentEvents,
      ...publicRefundEvents,
      ...publicDisputeEvents,
      ...publicSubscriptionEvents,
    ] as EventDefinition<unknown>[],
  },
  { command: readLedgerEventLog, events: publicPayoutEvents as EventDefinition<unknown>[] },
];
