import { paymentConfirmed, paymentCreated, type PaymentEventPayload } from '@gateway/contracts';
import { waitFor } from '@gateway/testkit-core';
import { readEventLog, UnitOfWork } from '../src';
import { eventPayload, openBackbone, type Backbone } from './backbone-fixture';

describe('a service event log (its outbox in position order)', () => {
  let backbone: Backbone;
  let uow: UnitOfWork;

  beforeAll(async () => {
    backbone = await openBackbone();
    uow = new UnitOfWork(backbone.dataSource, 'log-writer');
  });

  afterAll(() => backbone?.close());

  /** The position the log has reached now: a test reads only what it emits after it. */
  const lastPosition = async (): Promise<string> => {
    const [row]: Array<{ position: string }> = await backbone.dataSource.query(
      `SELECT COALESCE(max(seq), 0)::text AS position FROM outbox`,
    );
    return row!.position;
  };

  const emitted = (payloads: PaymentEventPayload[], confirmed = false): Promise<string[]> =>
    uow.run({}, async (tx) => {
      const ids: string[] = [];
      for (const payload of payloads)
        ids.push((await tx.emit(confirmed ? paymentConfirmed : paymentCreated, payload)).id);
      return ids;
    });

  test('answers the named events after a position, in order, page by page, passing over the other names', async () => {
    const start = await lastPosition();
    const created = [eventPayload(101), eventPayload(102), eventPayload(103)];
    await emitted([created[0]!]);
    await emitted([eventPayload(199)], true);
    await emitted([created[1]!, created[2]!]);
    const read = (after: string) =>
      readEventLog(backbone.dataSource, {
        after_position: after,
        limit: 2,
        settled_seconds: 0,
        names: [paymentCreated.name],
      });

    const first = await read(start);
    const second = await read(first.next_position);
    const third = await read(second.next_position);

    const ids = (page: typeof first) => page.entries.map((e) => String(e.payload.event_id));
    expect({ first: ids(first), more: first.has_more }).toEqual({
      first: [created[0]!.event_id],
      more: true,
    });
    expect({ second: ids(second), more: second.has_more }).toEqual({
      second: [created[1]!.event_id, created[2]!.event_id],
      more: true,
    });
    expect(third).toEqual({ entries: [], next_position: second.next_position, has_more: false });
    expect(first.entries[0]).toMatchObject({ name: paymentCreated.name, payload: created[0] });
    expect(BigInt(first.entries[0]!.position)).toBeGreaterThan(BigInt(start));
  });

  test('a position taken by a transaction that commits after a later one is not stepped over', async () => {
    const start = await lastPosition();
    const early = eventPayload(201);
    const late = eventPayload(202);
    let commitEarly!: () => void;
    const earlyHeld = new Promise<void>((resolve) => (commitEarly = resolve));
    let earlyInserted!: () => void;
    const earlyRowInserted = new Promise<void>((resolve) => (earlyInserted = resolve));
    // The early event takes its position first, and its transaction stays open while the later one commits.
    const earlyCommitted = uow.run({}, async (tx) => {
      await tx.emit(paymentCreated, early);
      earlyInserted();
      await earlyHeld;
    });
    await earlyRowInserted;
    await emitted([late]);
    const read = (settledSeconds: number) =>
      readEventLog(backbone.dataSource, {
        after_position: start,
        limit: 10,
        settled_seconds: settledSeconds,
        names: [paymentCreated.name],
      });

    // Read without settling, the later event alone is visible: a reader moving past it would lose the early one.
    const unsettled = await read(0);
    // Read with a settling time, nothing is answered and the position stays while the later event is young.
    const settling = await read(3);
    commitEarly();
    await earlyCommitted;
    const settled = await waitFor(
      async () => {
        const page = await read(3);
        return page.entries.length > 0 ? page : undefined;
      },
      { what: 'both events to settle' },
    );

    expect(unsettled.entries.map((e) => e.payload)).toEqual([late]);
    expect(settling).toEqual({ entries: [], next_position: start, has_more: false });
    expect(settled.entries.map((e) => e.payload)).toEqual([early, late]);
  });
});
