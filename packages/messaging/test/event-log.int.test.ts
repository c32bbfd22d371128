import {
  EVERY_EVENT_NAME,
  paymentConfirmed,
  paymentCreated,
  readPaymentEventLog,
  type PaymentEventPayload,
} from '@gateway/contracts';
import { waitFor } from '@gateway/testkit-core';
import { createEnvelope, readEventLog, UnitOfWork } from '../src';
import { eventPayload, openBackbone, unknownButWellFormed, type Backbone } from './backbone-fixture';

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
      readEventLog(
        backbone.dataSource,
        { after_position: after, limit: 2, settled_seconds: 0, names: [paymentCreated.name] },
        readPaymentEventLog,
      );

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

  /**
   * Holds a transaction open after it wrote `early`'s outbox row (its position comes before everything emitted
   * meanwhile), the row dated `backdate` earlier (as if it had been open that long); answers how to commit it. The unit
   * of work writes its rows at the end of its work, right before it commits: this holds a transaction in that moment,
   * as a slow commit would.
   */
  const heldOpen = async (early: PaymentEventPayload, backdate = '0 seconds') => {
    let commit!: () => void;
    const held = new Promise<void>((resolve) => (commit = resolve));
    let inserted!: () => void;
    const rowInserted = new Promise<void>((resolve) => (inserted = resolve));
    const committed = backbone.dataSource.transaction(async (manager) => {
      const envelope = createEnvelope(paymentCreated, early);
      await manager.query(
        `INSERT INTO outbox (message_id, name, envelope, created_at) VALUES ($1, $2, $3, now() - $4::interval)`,
        [envelope.id, envelope.name, JSON.stringify(envelope), backdate],
      );
      inserted();
      await held;
    });
    await rowInserted;
    return async () => {
      commit();
      await committed;
    };
  };

  const readAfter = (after: string, settledSeconds: number) =>
    readEventLog(
      backbone.dataSource,
      { after_position: after, limit: 10, settled_seconds: settledSeconds, names: [paymentCreated.name] },
      readPaymentEventLog,
    );

  test('a position taken by a transaction still open is not stepped over, whatever the settling time', async () => {
    const start = await lastPosition();
    const early = eventPayload(201);
    const late = [eventPayload(202), eventPayload(203)];
    // The early event takes its position first, and its transaction stays open while the later ones commit.
    const commitEarly = await heldOpen(early);
    await emitted([late[0]!]);
    await emitted([late[1]!]);

    // Nothing is answered while the early transaction is open: not without settling, not with a settling time.
    const unsettled = await readAfter(start, 0);
    const settling = await readAfter(start, 3);
    await commitEarly();
    const settled = await waitFor(
      async () => {
        const page = await readAfter(start, 0);
        return page.entries.length > 0 ? page : undefined;
      },
      { what: 'the three events to be answered' },
    );

    const heldBack = { entries: [], next_position: start, has_more: false, held_since: expect.any(String) };
    expect(unsettled).toEqual(heldBack);
    expect(settling).toEqual(heldBack);
    expect(settled.entries.map((e) => e.payload)).toEqual([early, ...late]);
  });

  test('a transaction open longer than the settling time still holds the log at its position', async () => {
    const start = await lastPosition();
    const early = eventPayload(301);
    const late = eventPayload(302);
    // Dated an hour back, as if both transactions had been open that long: older than any settling time.
    const commitEarly = await heldOpen(early, '1 hour');
    const [lateId] = await emitted([late]);
    await backbone.dataSource.query(
      `UPDATE outbox SET created_at = created_at - interval '1 hour' WHERE message_id = $1`,
      [lateId],
    );

    const whileOpen = await readAfter(start, 30);
    await commitEarly();
    const afterCommit = await waitFor(
      async () => {
        const page = await readAfter(start, 30);
        return page.entries.length > 0 ? page : undefined;
      },
      { what: 'both events to be answered' },
    );

    // Held since the first row it cannot answer yet was recorded, an hour ago: a reader shows that as its lag.
    expect(whileOpen).toEqual({
      entries: [],
      next_position: start,
      has_more: false,
      held_since: expect.any(String),
    });
    expect(Date.now() - Date.parse(whileOpen.held_since!)).toBeGreaterThanOrEqual(3_600_000);
    expect(afterCommit.entries.map((e) => e.payload)).toEqual([early, late]);
  });

  test('answers every public event of the log when asked for every name, and none of its internal messages', async () => {
    const start = await lastPosition();
    await emitted([eventPayload(401)]);
    await uow.run({}, (tx) => tx.emit(unknownButWellFormed, { n: 1 }));
    await emitted([eventPayload(402)], true);

    const page = await readEventLog(
      backbone.dataSource,
      {
        after_position: start,
        limit: 10,
        settled_seconds: 0,
        names: [paymentCreated.name, EVERY_EVENT_NAME],
      },
      readPaymentEventLog,
    );

    expect(page.entries.map((e) => e.name)).toEqual([paymentCreated.name, paymentConfirmed.name]);
    expect(BigInt(page.next_position)).toBe(BigInt(start) + 3n);
  });
});
