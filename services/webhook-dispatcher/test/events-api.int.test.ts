import {
  getEvent,
  listEvents,
  newPublicId,
  paymentCancelled,
  paymentConfirmed,
  paymentCreated,
  payoutFailed,
  payoutPaid,
  refundFailed,
  refundSucceeded,
  type PayoutEventPayload,
  type PublicEvent,
  type RefundEventPayload,
} from '@gateway/contracts';
import { createEnvelope } from '@gateway/messaging';
import type { ServiceRuntime } from '@gateway/service-runtime';
import { aRefundEvent, poisonedEnvelope, publishAndAwaitParking, waitFor } from '@gateway/testkit';
import { eventPurge } from '../src/application/event-purge';
import { retainedSince } from '../src/domain/public-event';
import { listEventsOf } from '../src/persistence';
import { answers } from './support/receiver';
import { Harness } from './support/harness';

describe('the events API: every public event of the last 30 days, as its webhooks receive it', () => {
  let harness: Harness;
  let dispatcher: ServiceRuntime;

  beforeAll(async () => {
    harness = await Harness.create('webhook-events-api');
    dispatcher = await harness.startDispatcher();
  });

  afterAll(async () => {
    await harness.close();
  });

  const list = async (businessId: string, query: Record<string, unknown> = {}) => {
    const reply = await harness.request(listEvents, { business_id: businessId, ...query });
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    return reply.result;
  };

  const stored = async (eventIds: string[]) =>
    waitFor(
      async () =>
        (
          await harness.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE id = ANY($1)', [
            eventIds,
          ])
        )[0]!.n === eventIds.length,
      { what: `${eventIds.length} event(s) kept` },
    );

  const refundPayload = (businessId: string, status: 'succeeded' | 'failed'): RefundEventPayload =>
    aRefundEvent({
      business_id: businessId,
      amount_centavos: 2550,
      status,
      failure_reason: status === 'failed' ? 'NAO_REALIZADO' : null,
      external_id: 'D0123456789',
    });

  test('lists newest first a page at a time, filters by type, and reads one event with the webhook body', async () => {
    const businessId = newPublicId('biz');
    const published: string[] = [];
    for (const definition of [paymentCreated, paymentConfirmed, paymentCancelled]) {
      const { payload } = await harness.publishPaymentEvent(definition, businessId, {
        amount_centavos: 5050,
      });
      published.push(payload.event_id);
      await stored([payload.event_id]);
    }
    const refund = refundPayload(businessId, 'succeeded');
    await harness.client.publish(refundSucceeded, refund);
    published.push(refund.event_id);
    await stored(published);
    await harness.publishPaymentEvent(paymentCreated, newPublicId('biz'));

    const first = await list(businessId, { limit: 3 });
    expect(first.data.map((event) => event.id)).toEqual([...published].reverse().slice(0, 3));
    expect(first.has_more).toBe(true);
    const rest = await list(businessId, { limit: 3, starting_after: first.data[2]!.id });
    expect(rest).toEqual({ data: [expect.objectContaining({ id: published[0] })], has_more: false });

    const refunds = await list(businessId, { type: 'refund.succeeded' });
    expect(refunds.data).toEqual([
      {
        id: refund.event_id,
        type: 'refund.succeeded',
        created_at: refund.occurred_at,
        business_id: businessId,
        data: {
          refund_id: refund.refund.refund_id,
          payment_id: refund.refund.payment_id,
          amount_brl: 25.5,
          status: 'succeeded',
          reason: null,
          failure_reason: null,
          external_id: 'D0123456789',
          returned_funds_id: null,
          created_at: refund.refund.created_at,
          updated_at: refund.refund.updated_at,
        },
      },
    ]);
    const one = await harness.request(getEvent, { business_id: businessId, event_id: published[1]! });
    expect(one).toMatchObject({
      ok: true,
      result: { id: published[1], type: 'payment.confirmed', data: { amount_brl: 50.5 } },
    });
  });

  test("lists one payment's events, its refunds' among them, and another business's payment as none", async () => {
    const businessId = newPublicId('biz');
    const paymentId = newPublicId('pay');
    const own: string[] = [];
    for (const definition of [paymentCreated, paymentConfirmed]) {
      const { payload } = await harness.publishPaymentEvent(definition, businessId, {
        payment_id: paymentId,
      });
      own.push(payload.event_id);
    }
    const refund = aRefundEvent({ business_id: businessId, payment_id: paymentId, status: 'succeeded' });
    await harness.client.publish(refundSucceeded, refund);
    own.push(refund.event_id);
    const other = await harness.publishPaymentEvent(paymentConfirmed, businessId);
    await stored([...own, other.payload.event_id]);

    const listed = await list(businessId, { payment_id: paymentId });
    expect(listed.data.map((event) => event.id).sort()).toEqual([...own].sort());
    expect(listed.has_more).toBe(false);
    expect(listed.data.every((event) => event.data.payment_id === paymentId)).toBe(true);
    expect(
      (await list(businessId, { payment_id: paymentId, type: 'refund.succeeded' })).data.map(
        (event) => event.id,
      ),
    ).toEqual([refund.event_id]);
    const paged = await list(businessId, { payment_id: paymentId, limit: 2 });
    expect(paged.has_more).toBe(true);
    expect(
      (await list(businessId, { payment_id: paymentId, limit: 2, starting_after: paged.data[1]!.id })).data,
    ).toHaveLength(1);
    // Another business asking for this payment's events gets none.
    expect(await list(newPublicId('biz'), { payment_id: paymentId })).toEqual({ data: [], has_more: false });
  });

  test('another business never sees an event: its list is empty, its read NOT_FOUND, its cursor refused', async () => {
    const owner = newPublicId('biz');
    const { payload } = await harness.publishPaymentEvent(paymentConfirmed, owner);
    await stored([payload.event_id]);
    const stranger = newPublicId('biz');
    expect(await list(stranger)).toEqual({ data: [], has_more: false });
    expect(
      await harness.request(getEvent, { business_id: stranger, event_id: payload.event_id }),
    ).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(
      await harness.request(listEvents, { business_id: stranger, starting_after: payload.event_id }),
    ).toMatchObject({ ok: false, error: { code: 'INVALID_FIELDS' } });
  });

  test('an event over 30 days old is no longer shown, and the purge deletes it', async () => {
    const businessId = newPublicId('biz');
    const old = await harness.publishPaymentEvent(paymentConfirmed, businessId);
    const recent = await harness.publishPaymentEvent(paymentCreated, businessId);
    await stored([old.payload.event_id, recent.payload.event_id]);
    await harness.query(`UPDATE events SET created_at = now() - interval '31 days' WHERE id = $1`, [
      old.payload.event_id,
    ]);
    expect((await list(businessId)).data.map((event: PublicEvent) => event.id)).toEqual([
      recent.payload.event_id,
    ]);
    expect(
      await harness.request(getEvent, { business_id: businessId, event_id: old.payload.event_id }),
    ).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });

    const purge = eventPurge(dispatcher.dataSource, { logger: dispatcher.logger, intervalMs: 50 });
    purge.start();
    try {
      await waitFor(
        async () =>
          (await harness.query('SELECT 1 FROM events WHERE id = $1', [old.payload.event_id])).length === 0,
        { what: 'the old event purged' },
      );
    } finally {
      await purge.stop();
    }
    expect(await harness.query('SELECT 1 FROM events WHERE id = $1', [recent.payload.event_id])).toHaveLength(
      1,
    );
  });

  test('refund events reach the webhooks subscribed to them, once, signed like payment events', async () => {
    const businessId = newPublicId('biz');
    const path = `/refunds/${newPublicId('p')}`;
    await harness.createWebhook(businessId, harness.receiver.route(path, answers.status(200)), [
      'refund.failed',
    ]);
    const failed = refundPayload(businessId, 'failed');
    const envelope = createEnvelope(refundFailed, failed);
    await harness.client.publishEnvelope(envelope, {});
    await harness.client.publishEnvelope(envelope, {});
    const succeeded = refundPayload(businessId, 'succeeded');
    await harness.client.publish(refundSucceeded, succeeded);
    await stored([failed.event_id, succeeded.event_id]);
    await waitFor(() => harness.receiver.hitsTo(path).length > 0, { what: 'the refund.failed delivery' });
    const hits = harness.receiver.hitsTo(path);
    expect(hits.map((hit) => JSON.parse(hit.body.toString('utf8')))).toEqual([
      expect.objectContaining({
        id: failed.event_id,
        type: 'refund.failed',
        data: expect.objectContaining({ status: 'failed', failure_reason: 'NAO_REALIZADO' }),
      }),
    ]);
    expect(hits[0]!.headers['webhook-id']).toBe(failed.event_id);
  });

  test('payout events reach the webhooks subscribed to them once, and the events API, the key masked', async () => {
    const businessId = newPublicId('biz');
    const path = `/payouts/${newPublicId('p')}`;
    await harness.createWebhook(businessId, harness.receiver.route(path, answers.status(200)), [
      'payout.paid',
    ]);
    const now = new Date().toISOString();
    const payout = (status: 'paid' | 'failed'): PayoutEventPayload => ({
      event_id: newPublicId('evt'),
      business_id: businessId,
      occurred_at: now,
      payout: {
        payout_id: newPublicId('po'),
        business_id: businessId,
        amount_centavos: 12_345,
        status,
        destination: { pix_key_masked: '***.456.789-**' },
        external_id: status === 'paid' ? 'E12345678202611291200abcdefghijk' : null,
        failure_reason: status === 'failed' ? 'Chave inexistente' : null,
        created_at: now,
        updated_at: now,
      },
    });
    const paid = payout('paid');
    const failed = payout('failed');
    const envelope = createEnvelope(payoutPaid, paid);
    await harness.client.publishEnvelope(envelope, {});
    await harness.client.publishEnvelope(envelope, {});
    await harness.client.publish(payoutFailed, failed);
    await stored([paid.event_id, failed.event_id]);
    await waitFor(() => harness.receiver.hitsTo(path).length > 0, { what: 'the payout.paid delivery' });
    const expectedData = {
      payout_id: paid.payout.payout_id,
      amount_brl: 123.45,
      status: 'paid',
      destination: { pix_key_masked: '***.456.789-**' },
      external_id: paid.payout.external_id,
      failure_reason: null,
      created_at: now,
      updated_at: now,
    };
    expect(harness.receiver.hitsTo(path).map((hit) => JSON.parse(hit.body.toString('utf8')))).toEqual([
      {
        id: paid.event_id,
        type: 'payout.paid',
        created_at: now,
        business_id: businessId,
        data: expectedData,
      },
    ]);
    const listed = await list(businessId, { type: 'payout.failed' });
    expect(listed.data.map((event: PublicEvent) => [event.id, event.type, event.data.status])).toEqual([
      [failed.event_id, 'payout.failed', 'failed'],
    ]);
  });

  test('a poison refund event is parked, not retried, and is not kept', async () => {
    const payload = refundPayload(newPublicId('biz'), 'succeeded');
    const envelope = poisonedEnvelope(refundSucceeded, payload, { refund: { amount_centavos: 'all' } });
    const parked = await publishAndAwaitParking(
      harness.client,
      harness.env.config,
      'webhook-dispatcher',
      'events',
      envelope,
    );
    expect(parked).toEqual([
      expect.objectContaining({ messageId: envelope.id, reason: expect.stringContaining('refund') }),
    ]);
    expect(await harness.query('SELECT 1 FROM events WHERE id = $1', [payload.event_id])).toEqual([]);
  });

  test('after losing its broker connection the dispatcher keeps events and answers the API again', async () => {
    const businessId = newPublicId('biz');
    dispatcher.broker.dropConnectionForTesting();
    const { payload } = await harness.publishPaymentEvent(paymentCancelled, businessId);
    await stored([payload.event_id]);
    const page = await waitFor(
      async () => {
        const reply = await harness.request(listEvents, { business_id: businessId }, { timeoutMs: 1000 });
        return reply.ok && reply.result;
      },
      { what: 'the list answered after reconnecting' },
    );
    expect(page.data.map((event) => event.type)).toEqual(['payment.cancelled']);
  });

  test("a page of a business with a million events, or of one payment's, reads the page indexes, never the whole table", async () => {
    const businessId = newPublicId('biz');
    await harness.query(
      `INSERT INTO events (id, business_id, type, payment_id, created_at, body)
       SELECT 'evt_' || lpad(g::text, 24, '0'), $1,
              CASE WHEN g % 10 = 0 THEN 'refund.succeeded' ELSE 'payment.created' END,
              'pay_' || lpad((g / 4)::text, 24, '0'), now() - make_interval(secs => g), '{}'
         FROM generate_series(1, 1000000) AS g`,
      [businessId],
    );
    await harness.query('ANALYZE events');
    const { dataSource } = dispatcher;
    const queries: Array<{ sql: string; parameters: unknown[] }> = [];
    const logQuery = jest.spyOn(dataSource.logger, 'logQuery').mockImplementation((sql, parameters) => {
      if (/ORDER BY/.test(sql) && /"events" "listed"/.test(sql))
        queries.push({ sql, parameters: parameters ?? [] });
    });
    try {
      for (const type of [undefined, 'refund.succeeded' as const]) {
        const page = await listEventsOf(
          dataSource.manager,
          businessId,
          { type, since: retainedSince(new Date()) },
          { limit: 100, startingAfter: 'evt_' + '500000'.padStart(24, '0') },
        );
        expect(page?.rows).toHaveLength(100);
      }
      // One payment's events among the million: its four, through the index by payment.
      const ofPayment = await listEventsOf(
        dataSource.manager,
        businessId,
        { paymentId: 'pay_' + '125000'.padStart(24, '0'), since: retainedSince(new Date()) },
        { limit: 100, startingAfter: null },
      );
      expect(ofPayment?.rows).toHaveLength(4);
    } finally {
      logQuery.mockRestore();
    }
    expect(queries).toHaveLength(3);
    for (const { sql, parameters } of queries) {
      const [explained] = await harness.query<{ 'QUERY PLAN': unknown }>(
        `EXPLAIN (FORMAT JSON) ${sql}`,
        parameters,
      );
      const text = JSON.stringify(explained!['QUERY PLAN']);
      expect(text).not.toContain('"Seq Scan"');
      // With one business holding the whole table the planner may walk the age index instead: still no scan.
      expect(text).toMatch(/"Index Name":"events_(page|page_by_type|page_by_payment|by_age)"/);
      expect(text).not.toMatch(/"Node Type":"Sort"/);
    }
    await harness.query('DELETE FROM events WHERE business_id = $1', [businessId]);
  }, 120_000);
});
