import {
  newPublicId,
  paymentConfirmed,
  readLedgerEventLog,
  readPaymentEventLog,
  type EventLogEntry,
  type EventLogPage,
  type ReadEventLog,
} from '@gateway/contracts';
import type { ServiceRuntime } from '@gateway/service-runtime';
import { aPaymentEvent, waitFor } from '@gateway/testkit';
import { answers } from './support/receiver';
import { Harness } from './support/harness';

/**
 * The payment service's event log as its command answers it, scripted by the tests (its own answers are tested with
 * the payment service): entries after the position asked, of the names asked, a page at a time.
 */
class ScriptedLog {
  readonly entries: EventLogEntry[] = [];
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
      entries: read.filter((entry) => request.names.includes(entry.name)),
      next_position: read.at(-1)?.position ?? request.after_position,
      has_more: after.length > request.limit,
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
      .handle(readPaymentEventLog, async (request) => log.page(request))
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
});
