import type { DataSource } from 'typeorm';
import {
  EVERY_EVENT_NAME,
  findMessage,
  publicEventLogs,
  type CommandDefinition,
  type EventDefinition,
  type EventLogPage,
  type ReadEventLog,
} from '@gateway/contracts';
import { PeriodicWorker, type CallOptions } from '@gateway/messaging';
import { counter, gauge, type Logger } from '@gateway/observability';
import { webhookEventOfMessage } from '../domain/payload';
import { advanceEventLog, claimEventLog, eventLogLags, releaseEventLog } from '../persistence';
import { recordPublicEvent } from './record-public-event';

const recoveredEvents = counter(
  'webhook_event_log_recovered_events_total',
  'Events the reconciliation found in their owner event log before the broker brought them (lost or late on the broker), by log',
  ['log'],
);
const readFailures = counter(
  'webhook_event_log_read_failures_total',
  'Passes of the reconciliation that could not read or record an owner event log (the lease is given up, another replica or a later pass goes on), by log',
  ['log'],
);
const lagSeconds = gauge(
  'webhook_event_log_lag_seconds',
  'How far behind the reconciliation of an owner event log is, by log: the age of the first entry the owner still holds back once all it answered is read, else the time since it last read to the end',
  ['log'],
);
const waitingForNewerRelease = gauge(
  'webhook_event_log_waiting_for_newer_release',
  '1 while the reconciliation is stopped at an entry of a name this release does not know, left for a newer replica, by log',
  ['log'],
);
const unreadableEntries = counter(
  'webhook_event_log_unreadable_entries_total',
  'Event log entries whose payload does not fit their event contract: passed over, for an operator to look into',
  ['log'],
);
for (const { command } of publicEventLogs) {
  // Served at zero from the start, so the first increase is one Prometheus sees.
  recoveredEvents.inc({ log: command.name }, 0);
  readFailures.inc({ log: command.name }, 0);
  unreadableEntries.inc({ log: command.name }, 0);
  lagSeconds.set({ log: command.name }, 0);
  waitingForNewerRelease.set({ log: command.name }, 0);
}

export type AskCommand = <P, R>(
  definition: CommandDefinition<P, R>,
  payload: P,
  options: CallOptions,
) => Promise<R>;

export interface EventLogReconciliationOptions {
  dataSource: DataSource;
  /** Sends a command over the broker and answers its result (`broker.call`). */
  ask: AskCommand;
  /** Written as the owner of the logs' leases. */
  workerId: string;
  intervalMs: number;
  /** Entries one read asks for. */
  pageSize: number;
  /** Entries younger than this are left for a later pass (an earlier position may still commit). */
  settledSeconds: number;
  /** How long one read waits for its owner's answer. */
  readTimeoutMs: number;
  /** Called when a pass made deliveries (the worker sends them without waiting for its poll). */
  onDeliveriesCreated: () => void;
  logger: Logger;
}

/**
 * The second road every public event takes to its webhooks: one replica at a time (a lease per log) reads the event
 * log of each owner (the payment service's payments, refunds and disputes, the ledger's payouts) in position order
 * from where it stopped, and records each event as the broker's handlers do. An event the broker brought already is
 * found by its id and adds nothing; one the broker lost (a binding missing, a dead-lettered retry dropped) is recorded
 * now, with one delivery per subscribed webhook. The position moves only past what the owner answered as settled, so
 * an event whose position commits late is read all the same (docs/adr/0040-webhook-event-log-reconciliation.md).
 */
export class EventLogReconciliation extends PeriodicWorker {
  /** A lease outlasts a pass (a read, its recording) by far, and a dead replica's is taken over within seconds. */
  private readonly leaseMs: number;
  /** Until when this replica leaves a log to the others after a pass on it failed, by log. */
  private readonly leftUntil = new Map<string, number>();

  constructor(private readonly options: EventLogReconciliationOptions) {
    super({ name: 'event-log-reconciliation', intervalMs: options.intervalMs, logger: options.logger });
    this.leaseMs = 3 * options.intervalMs + 2 * options.readTimeoutMs;
  }

  /** Settled when a stop begins: a read still waiting for its owner's answer is given up rather than waited out. */
  private readonly stopping = new AbortController();

  /**
   * Stops after the pass in progress, that pass's wait for an owner's answer cut short (the page is read again from
   * the same position by the next pass, of this replica or another), and gives the leases up, so another replica goes
   * on at once.
   */
  override async stop(): Promise<void> {
    this.stopping.abort();
    await super.stop();
    for (const { command } of publicEventLogs)
      // A database out of reach keeps the lease until it runs out: another replica goes on a little later.
      await releaseEventLog(this.options.dataSource.manager, command.name, this.options.workerId).catch(
        () => undefined,
      );
  }

  /** One page of each log this replica holds; asks for another pass at once while a log has more. */
  protected override async pass(): Promise<boolean> {
    let more = false;
    for (const log of publicEventLogs) {
      const name = log.command.name;
      if ((this.leftUntil.get(name) ?? 0) > Date.now()) continue;
      try {
        more = (await this.readPage(log.command, log.events)) || more;
      } catch (err) {
        // A read given up by the stop is no failure: the lease is given up by the stop itself.
        if (this.stopping.signal.aborted) return false;
        readFailures.inc({ log: name });
        this.options.logger.warn(
          { log: name, err: String(err) },
          'event log reconciliation pass failed: lease given up, will retry',
        );
        // The lease is renewed only by a pass that succeeds: a replica that fails (its broker link, its database)
        // gives the log up and sits out two intervals, so every other replica gets a pass at it first.
        this.leftUntil.set(name, Date.now() + 2 * this.options.intervalMs);
        await releaseEventLog(this.options.dataSource.manager, name, this.options.workerId).catch(
          () => undefined,
        );
      }
    }
    await this.reportLags();
    return more && this.isRunning;
  }

  /** Every replica reports the lag of every log from the shared cursors, whichever holds the lease. */
  private async reportLags(): Promise<void> {
    try {
      for (const { log, seconds } of await eventLogLags(this.options.dataSource.manager))
        lagSeconds.set({ log }, Math.max(0, seconds));
    } catch {
      // The database is out of reach: the pass's own failure is counted, the lag is reported at the next pass.
    }
  }

  /** `answer`, unless a stop begins first: then a rejection, and `answer`'s own outcome is ignored. */
  private unlessStopping<T>(answer: Promise<T>): Promise<T> {
    const { signal } = this.stopping;
    answer.catch(() => undefined);
    if (signal.aborted) return Promise.reject(new Error('stopping'));
    return new Promise<T>((resolve, reject) => {
      const onStop = () => reject(new Error('stopping'));
      signal.addEventListener('abort', onStop, { once: true });
      answer.then(resolve, reject).finally(() => signal.removeEventListener('abort', onStop));
    });
  }

  /** Records one page of `command`'s log and saves the position after it; true when more is settled after it. */
  private async readPage(
    command: CommandDefinition<ReadEventLog, EventLogPage>,
    events: ReadonlyArray<EventDefinition<unknown>>,
  ): Promise<boolean> {
    const { dataSource, workerId } = this.options;
    const position = await claimEventLog(dataSource.manager, command.name, workerId, this.leaseMs);
    if (position === null) {
      waitingForNewerRelease.set({ log: command.name }, 0);
      return false;
    }
    const page = await this.unlessStopping(
      this.options.ask(
        command,
        {
          after_position: position,
          limit: this.options.pageSize,
          settled_seconds: this.options.settledSeconds,
          // Every entry, so one of a name this release does not know is seen instead of passed over by the owner; the
          // names themselves for an owner older than that, which answers them alone (as before).
          names: [...events.map((event) => event.name), EVERY_EVENT_NAME],
        },
        { timeoutMs: this.options.readTimeoutMs },
      ),
    );
    let deliveries = 0;
    // The last position handled; where the page stops if it holds an entry this release cannot handle.
    let handled = position;
    let unknown: EventLogPage['entries'][number] | undefined;
    for (const entry of page.entries) {
      if (!findMessage(entry.name)) {
        // A newer release emits it (a new event, a new version of one): it may be a public event, so it is not
        // passed over but left, with everything after it, for a replica of that release.
        unknown = entry;
        break;
      }
      handled = entry.position;
      const definition = events.find((event) => event.name === entry.name);
      // An event of this release that no webhook receives (the owner's internal events).
      if (!definition) continue;
      // Tolerant of fields a newer owner added; anything else wrong stays wrong at every read, so it is passed over.
      const fits = definition.schema.validate(entry.payload, { allowUnknown: true, convert: false });
      const event = !fits.error ? webhookEventOfMessage(entry.name, entry.payload) : undefined;
      if (!event) {
        unreadableEntries.inc({ log: command.name });
        this.options.logger.error(
          { log: command.name, position: entry.position, name: entry.name, err: String(fits.error) },
          'event log entry does not fit its contract, passed over',
        );
        continue;
      }
      const recorded = await recordPublicEvent(dataSource, event);
      if (recorded.recorded) {
        recoveredEvents.inc({ log: command.name });
        // The broker lost the event, or is later than the settling time: either way, worth an operator's look.
        this.options.logger.warn(
          {
            log: command.name,
            position: entry.position,
            event_id: event.id,
            deliveries: recorded.deliveries,
          },
          'event recorded from its owner log: the broker had not brought it',
        );
      }
      deliveries += recorded.deliveries;
    }
    if (deliveries > 0) this.options.onDeliveriesCreated();
    waitingForNewerRelease.set({ log: command.name }, unknown ? 1 : 0);
    if (unknown)
      this.options.logger.warn(
        { log: command.name, position: unknown.position, name: unknown.name },
        'event log entry of a name this release does not know: waiting for a newer replica to read it',
      );
    const held = await advanceEventLog(
      dataSource.manager,
      command.name,
      workerId,
      unknown ? handled : page.next_position,
      this.leaseMs,
      // Read to the end of what the owner answered: caught up with everything recorded before what it still holds back.
      !unknown && !page.has_more ? (page.held_since ?? 'now') : undefined,
    );
    if (unknown) {
      // Given up, and left alone for two intervals, so a replica of the newer release (rolling out) takes it.
      this.leftUntil.set(command.name, Date.now() + 2 * this.options.intervalMs);
      await releaseEventLog(dataSource.manager, command.name, workerId);
    }
    return held && page.has_more && !unknown;
  }
}
