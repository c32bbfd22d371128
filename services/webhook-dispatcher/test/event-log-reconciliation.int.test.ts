import {
  EVERY_EVENT_NAME,
  newPublicId,
  paymentConfirmed,
  readLedgerEventLog,
  readPaymentEventLog,
  type EventLogEntry,
  type EventLogPage,
  type ReadEventLog,
} from '@gateway/contracts';
import { metricsRegistry } from '@gateway/observability';
import type { ServiceRuntime } from '@gateway/service-runtime';
import { aPaymentEvent, waitFor } from '@gateway/testkit';
import { answers } from './support/receiver';
import { Harness } from './support/harness';

/**
 * The payment service's event log as its command answers it, scripted by the tests (its own answers are tested with
 * the payment service): entries after the position asked, of the names asked (every name with `EVERY_EVENT_NAME`), a
 * page at a time, each read counted, after `delayMs`.
 */
class ScriptedLog {
  readonly entries: EventLogEntry[] = [];
  readonly requests: ReadEventLog[] = [];
  delayMs = 0;
  /** When the first entry it holds back was recorded (as an owner with a transaction left open answers). */
  heldSince: string | undefined;
  private next = 1;

  append(name: string, payload: Record<string, unknown>): EventLogEntry {
    const entry = { position: String(this.next++), name, payload, recorded_at: new Date().toISOString() };
    this.entries.push(entry);
    return entry;
  }

  page(request: ReadEventLog): EventLogPage {
    const after = this.entries.filter((entry) => BigInt(entry.position) > BigInt(request.after_position));
    const read = after.slice(0, request.limit);
    return {
      entries: read.filter(
        (entry) => request.names.includes(EVERY_EVENT_NAME) || request.names.includes(entry.name),
      ),
      next_position: read.at(-1)?.position ?? request.after_position,
      has_more: after.length > request.limit,
      ...(this.heldSince ? { held_since: this.heldSince } : {}),
    };
  }
}

describe('the dispatcher reads the owners event logs for what the broker did not bring', () => {
  let harness: Harness;
  const log = new ScriptedLog();

  beforeAll(async () => {
    harness = await Harness.create('event-log');
    await harness.client
      .handlers('payment')
      .handle(readPaymentEventLog, async (request) => {
        log.requests.push(request);
        if (log.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, log.delayMs));
        return log.page(request);
      })
      .consume();
    await harness.client
      .handlers('ledger')
      .handle(readLedgerEventLog, async (request) => ({
        entries: [],
        next_position: request.after_position,
        has_more: false,
      }))
      .consume();
  });

  afterEach(() => harness.stopDispatchers());
  afterAll(() => harness.close());

  const startDispatcher = (workerId: string): Promise<ServiceRuntime> =>
    harness.startDispatcher({
      WORKER_ID: workerId,
      EVENT_LOG_RECONCILE_INTERVAL_MS: '100',
      EVENT_LOG_PAGE_SIZE: '2',
    });

  const cursor = async (): Promise<{ position: string; lease_owner: string | null } | undefined> =>
    (
      await harness.query<{ position: string; lease_owner: string | null }>(
        `SELECT position::text AS position, lease_owner FROM event_log_cursors WHERE log = $1`,
        [readPaymentEventLog.name],
      )
    )[0];

  const readPast = (position: string) =>
    waitFor(async () => BigInt((await cursor())?.position ?? '0') >= BigInt(position), {
      what: `the log read past ${position}`,
    });

  /** The value of one of the reconciliation's metrics for the payment service's log (the dispatchers run here). */
  const metricOfPaymentLog = async (name: string): Promise<number> => {
    const { values } = await metricsRegistry.getSingleMetric(name)!.get();
    return values.find((value) => value.labels.log === readPaymentEventLog.name)?.value ?? 0;
  };

  /** Waits until the payment log has been read `reads` more times after the position `after`. */
  const readAgainAfter = async (after: string, reads: number): Promise<void> => {
    const seen = log.requests.filter((request) => request.after_position === after).length;
    await waitFor(
      () => log.requests.filter((request) => request.after_position === after).length >= seen + reads,
      {
        what: `${reads} more reads after ${after}`,
      },
    );
  };

  const deliveriesOf = async (eventId: string): Promise<number> =>
    (
      await harness.query<{ n: number }>('SELECT count(*)::int AS n FROM deliveries WHERE event_id = $1', [
        eventId,
      ])
    )[0]!.n;

  test('an event only the log holds reaches each subscribed webhook once, and the position after it is kept', async () => {
    await startDispatcher(newPublicId('w'));
    const { businessId, path } = await harness.businessWithEndpoint('only-in-log', answers.status(200));
    await harness.createWebhook(businessId, harness.receiver.route(`${path}-2`, answers.status(200)), [
      'payment.confirmed',
    ]);
    const event = aPaymentEvent({ business_id: businessId, status: 'paid' });
    // Pages of two: the event sits on the second page, behind other messages of the log.
    log.append('payment.created.v1', { ...aPaymentEvent() });
    log.append('pix.charge.open.v1', { payment_id: newPublicId('pay') });
    const entry = log.append(paymentConfirmed.name, { ...event });
    await startDispatcher(newPublicId('w'));

    await waitFor(
      () => harness.receiver.hitsTo(path).length > 0 && harness.receiver.hitsTo(`${path}-2`).length > 0,
      {
        what: 'both webhooks',
      },
    );
    await readPast(entry.position);

    expect(JSON.parse(harness.receiver.hitsTo(path)[0]!.body.toString('utf8'))).toMatchObject({
      id: event.event_id,
      type: 'payment.confirmed',
    });
    expect(harness.receiver.hitsTo(`${path}-2`)).toHaveLength(1);
    expect(await deliveriesOf(event.event_id)).toBe(2);
  });

  test('an event the broker brought first is not delivered again when the log is read', async () => {
    await startDispatcher(newPublicId('w'));
    const { businessId, path } = await harness.businessWithEndpoint('both-roads', answers.status(200));
    const event = aPaymentEvent({ business_id: businessId, status: 'paid' });
    await harness.deliverPaymentEvent(paymentConfirmed, event);
    const entry = log.append(paymentConfirmed.name, { ...event });

    await readPast(entry.position);
    await waitFor(() => harness.receiver.hitsTo(path).length > 0, { what: 'the delivery' });

    expect(await deliveriesOf(event.event_id)).toBe(1);
  });

  test('an entry that does not fit its contract is passed over, and the events after it are delivered', async () => {
    await startDispatcher(newPublicId('w'));
    const { businessId, path } = await harness.businessWithEndpoint('unfit', answers.status(200));
    const unfit = log.append(paymentConfirmed.name, {
      ...aPaymentEvent({ business_id: businessId }),
      event_id: 42,
    });
    const event = aPaymentEvent({ business_id: businessId, status: 'paid' });
    const entry = log.append(paymentConfirmed.name, { ...event });

    await readPast(entry.position);
    await waitFor(() => harness.receiver.hitsTo(path).length > 0, { what: 'the delivery after it' });

    expect(BigInt(entry.position)).toBeGreaterThan(BigInt(unfit.position));
    expect(harness.receiver.hitsTo(path).map((hit) => JSON.parse(hit.body.toString('utf8')).id)).toEqual([
      event.event_id,
    ]);
  });

  test('the replica holding the lease of a log gives it up as it stops: another goes on from the kept position at once', async () => {
    const first = await startDispatcher('replica-a');
    await startDispatcher('replica-b');
    const holder = await waitFor(async () => (await cursor())?.lease_owner ?? undefined, {
      what: 'a lease holder',
    });
    const kept = (await cursor())!.position;
    const { businessId, path } = await harness.businessWithEndpoint('take-over', answers.status(200));

    await harness.stopDispatcher(holder === 'replica-a' ? first : harness.running.find((r) => r !== first)!);
    const event = aPaymentEvent({ business_id: businessId, status: 'paid' });
    const entry = log.append(paymentConfirmed.name, { ...event });
    await waitFor(() => harness.receiver.hitsTo(path).length > 0, {
      what: 'the delivery by the other replica',
    });
    await readPast(entry.position);

    expect(BigInt(kept)).toBeLessThan(BigInt(entry.position));
    expect((await cursor())?.lease_owner).toBe(holder === 'replica-a' ? 'replica-b' : 'replica-a');
    expect(await deliveriesOf(event.event_id)).toBe(1);
  });

  test('a stop while a read waits for its owner gives the read up at once: no failure counted, the lease given up', async () => {
    const failuresBefore = await metricOfPaymentLog('webhook_event_log_read_failures_total');
    // The owner answers in 20 s and the replica would wait 30 s for it.
    log.delayMs = 20_000;
    try {
      const readsBefore = log.requests.length;
      const replica = await harness.startDispatcher({
        WORKER_ID: 'replica-stopping',
        EVENT_LOG_RECONCILE_INTERVAL_MS: '100',
        EVENT_LOG_READ_TIMEOUT_MS: '30000',
      });
      await waitFor(() => log.requests.length > readsBefore, { what: 'a read waiting for its answer' });
      const startedAt = Date.now();
      await harness.stopDispatcher(replica);
      const tookMs = Date.now() - startedAt;

      expect(tookMs).toBeLessThan(10_000);
      expect(await metricOfPaymentLog('webhook_event_log_read_failures_total')).toBe(failuresBefore);
      expect((await cursor())?.lease_owner).toBeNull();
    } finally {
      log.delayMs = 0;
    }
  });

  test('a replica whose reads fail gives the lease up: another takes the log over and reads it', async () => {
    const failuresBefore = await metricOfPaymentLog('webhook_event_log_read_failures_total');
    // Replica a waits 50 ms for an answer that takes 300: every read it makes fails.
    log.delayMs = 300;
    try {
      const failing = await harness.startDispatcher({
        WORKER_ID: 'replica-failing',
        EVENT_LOG_RECONCILE_INTERVAL_MS: '100',
        EVENT_LOG_READ_TIMEOUT_MS: '50',
      });
      await waitFor(
        async () => (await metricOfPaymentLog('webhook_event_log_read_failures_total')) >= failuresBefore + 2,
        { what: 'reads failing' },
      );
      const { businessId, path } = await harness.businessWithEndpoint('failing-reads', answers.status(200));
      const event = aPaymentEvent({ business_id: businessId, status: 'paid' });
      const entry = log.append(paymentConfirmed.name, { ...event });
      await startDispatcher('replica-healthy');

      await waitFor(() => harness.receiver.hitsTo(path).length > 0, {
        what: 'the delivery by the healthy replica',
      });
      await readPast(entry.position);

      expect(harness.running).toContain(failing);
      expect(await deliveriesOf(event.event_id)).toBe(1);
    } finally {
      log.delayMs = 0;
    }
  });

  test('an entry of a name this release does not know stops the reading there, until a newer release reads it', async () => {
    await startDispatcher(newPublicId('w'));
    const { businessId, path } = await harness.businessWithEndpoint('newer-name', answers.status(200));
    const before = log.append('payment.created.v1', { ...aPaymentEvent() });
    const newer = log.append('payment.confirmed.v99', { ...aPaymentEvent({ business_id: businessId }) });
    const event = aPaymentEvent({ business_id: businessId, status: 'paid' });
    const after = log.append(paymentConfirmed.name, { ...event });

    await readPast(before.position);
    await readAgainAfter(before.position, 3);
    // Caught up an hour ago: the lag grows while the reading waits.
    await harness.query(
      `UPDATE event_log_cursors SET caught_up_at = now() - interval '1 hour' WHERE log = $1`,
      [readPaymentEventLog.name],
    );
    await waitFor(async () => (await metricOfPaymentLog('webhook_event_log_lag_seconds')) >= 3600, {
      what: 'the lag reported',
    });
    const waiting = await metricOfPaymentLog('webhook_event_log_waiting_for_newer_release');
    const stoppedAt = (await cursor())!.position;
    const delivered = await deliveriesOf(event.event_id);
    // A replica of the newer release reads it (here: it becomes a name this release knows) and goes on past it.
    log.entries[log.entries.indexOf(newer)] = { ...newer, name: 'payment.created.v1' };
    await readPast(after.position);
    await waitFor(() => harness.receiver.hitsTo(path).length > 0, { what: 'the delivery after it' });
    await waitFor(async () => (await metricOfPaymentLog('webhook_event_log_lag_seconds')) < 60, {
      what: 'the lag back to none',
    });

    expect({ stoppedAt, delivered, waiting }).toEqual({
      stoppedAt: before.position,
      delivered: 0,
      waiting: 1,
    });
    expect(await deliveriesOf(event.event_id)).toBe(1);
    expect(await metricOfPaymentLog('webhook_event_log_waiting_for_newer_release')).toBe(0);
  });

  test('a log its owner holds back (a transaction left open) shows as a lag that grows, and none once it is released', async () => {
    await startDispatcher(newPublicId('w'));
    const { businessId, path } = await harness.businessWithEndpoint('held-back', answers.status(200));
    const event = aPaymentEvent({ business_id: businessId, status: 'paid' });
    log.heldSince = new Date(Date.now() - 3_600_000).toISOString();
    const last = log.append(paymentConfirmed.name, { ...event });

    // Everything answered is read; what the owner holds back was recorded an hour ago.
    await readPast(last.position);
    await waitFor(async () => (await metricOfPaymentLog('webhook_event_log_lag_seconds')) >= 3600, {
      what: 'the lag of the held-back log reported',
    });
    log.heldSince = undefined;
    await waitFor(async () => (await metricOfPaymentLog('webhook_event_log_lag_seconds')) < 60, {
      what: 'the lag back to none once the owner holds nothing back',
    });
    await waitFor(() => harness.receiver.hitsTo(path).length > 0, { what: 'the event delivered' });
    expect(await deliveriesOf(event.event_id)).toBe(1);
  });
});
