import {
  advanceSubscriptionClock,
  cancelSubscription,
  createSubscription,
  dateOfDay,
  getSubscription,
  listPayments,
  newPublicId,
  pixChargeClosed,
  pixChargePaid,
  pixCycleAttemptFailed,
  pixRecurrenceChanged,
  saoPauloDay,
  simulateSubscription,
  updateSubscription,
  type CreateSubscription,
  type PaymentRecord,
  type PixRecurrenceChanged,
  type SubscriptionRecord,
} from '@gateway/contracts';
import { publishAndAwaitHandling, waitFor } from '@gateway/testkit';
import { cycleDueDate } from '../src/domain/subscription';
import { claimClockMove, endClockMove } from '../src/persistence';
import { aPixChargeClosed, aPixChargePaid } from './support/rail-events';
import { paymentServiceForTheseTests, type Harness } from './support/harness';

const inDays = (days: number) => dateOfDay(saoPauloDay(new Date()) + days);

function aCreateSubscription(
  businessId: string,
  overrides: Partial<CreateSubscription> = {},
): CreateSubscription {
  return {
    business_id: businessId,
    business_name: 'Academia Teste',
    customer_id: newPublicId('cust'),
    debtor: { name: 'Francisco da Silva', document: '12345678909' },
    amount_centavos: 9_990,
    minimum_amount_centavos: null,
    interval: 'monthly',
    start_date: inDays(30),
    end_date: null,
    description: 'Plano mensal',
    retry_policy: 'three_in_seven_days',
    journey: 'qr',
    payer_account: null,
    metadata: null,
    ...overrides,
  };
}

/** The steps the tests take against a payment service: subscribe, authorize, read the subscription and its cycles. */
function subscriptionSteps(h: Harness) {
  async function subscribe(
    businessId: string,
    overrides: Partial<CreateSubscription> = {},
    messageId = newPublicId('cmd'),
  ): Promise<SubscriptionRecord> {
    const reply = await h.request(createSubscription, aCreateSubscription(businessId, overrides), {
      messageId,
    });
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    return reply.result;
  }

  const changed = (subscription: SubscriptionRecord, overrides: Partial<PixRecurrenceChanged> = {}) => ({
    subscription_id: subscription.subscription_id,
    recurrence_id: 'RR1',
    outcome: 'authorized' as const,
    cancelled_by: null,
    reason_code: null,
    at: new Date().toISOString(),
    ...overrides,
  });

  async function activated(businessId: string, overrides: Partial<CreateSubscription> = {}) {
    const subscription = await subscribe(businessId, overrides);
    await h.waitForHandled([await h.publishEvent(pixRecurrenceChanged, changed(subscription))]);
    return read(businessId, subscription.subscription_id);
  }

  async function read(businessId: string, subscriptionId: string): Promise<SubscriptionRecord> {
    const reply = await h.request(getSubscription, {
      business_id: businessId,
      subscription_id: subscriptionId,
    });
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    return reply.result;
  }

  async function cyclesOf(businessId: string, subscriptionId: string): Promise<PaymentRecord[]> {
    const reply = await h.request(listPayments, {
      business_id: businessId,
      subscription_id: subscriptionId,
      limit: 100,
    });
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    return [...reply.result.data].sort((a, b) => a.cycle! - b.cycle!);
  }

  return { subscribe, changed, activated, read, cyclesOf };
}

describe('subscriptions (Pix Automático) in the payment service', () => {
  const h = paymentServiceForTheseTests('payment-subscriptions');

  const { subscribe, changed, activated, read, cyclesOf } = subscriptionSteps(h);

  async function advance(
    businessId: string,
    subscriptionId: string,
    to: string,
  ): Promise<SubscriptionRecord> {
    const reply = await h.request(advanceSubscriptionClock, {
      business_id: businessId,
      subscription_id: subscriptionId,
      to,
    });
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    // The answer comes at once; the move runs in the background until the target is cleared and its lease let go.
    await waitFor(
      async () => {
        const [row] = (await h.service.dataSource.query(
          'SELECT clock_target, clock_lease_until FROM subscriptions WHERE id = $1',
          [subscriptionId],
        )) as Array<{ clock_target: string | null; clock_lease_until: Date | null }>;
        return row?.clock_target === null && row.clock_lease_until === null ? true : undefined;
      },
      { what: `the clock of ${subscriptionId} moved to ${to}` },
    );
    return read(businessId, subscriptionId);
  }

  const clockOf = async (id: string) =>
    (
      (await h.service.dataSource.query(
        `SELECT clock_date::text AS clock, clock_target::text AS target, clock_lease_until IS NOT NULL AS held,
                cycle_open_failures AS failures
           FROM subscriptions WHERE id = $1`,
        [id],
      )) as Array<{ clock: string; target: string | null; held: boolean; failures: number }>
    )[0]!;

  /** The cycle asked of the adapter and not recorded yet. */
  const openingOf = async (id: string) =>
    (
      (await h.service.dataSource.query(
        `SELECT cycle, amount_centavos::int AS amount FROM subscription_cycle_openings WHERE subscription_id = $1`,
        [id],
      )) as Array<{ cycle: number; amount: number }>
    )[0] ?? null;

  const outboxNames = async (subscriptionId: string): Promise<string[]> => {
    const rows: Array<{ name: string }> = await h.service.dataSource.query(
      `SELECT name FROM outbox WHERE envelope->'payload'->'subscription'->>'subscription_id' = $1 ORDER BY seq`,
      [subscriptionId],
    );
    return rows.map((row) => row.name);
  };

  describe('create', () => {
    test('push: opens the recurrence with the payer account, pending authorization, with subscription.created', async () => {
      const businessId = await h.newBusiness();
      const account = { ispb: '12345678', branch: '0001', account: '123456-7' };
      const subscription = await subscribe(businessId, { journey: 'push', payer_account: account });
      expect(subscription).toMatchObject({
        status: 'pending_authorization',
        journey: 'push',
        authorization: null,
        first_payment_id: null,
        next_cycle: 1,
        next_due_date: inDays(30),
        current_date: inDays(0),
      });
      const open = h.rails
        .callsOf('pix.recurrence.open.v1')
        .find((call) => call.payload.subscription_id === subscription.subscription_id)!;
      expect(open.payload).toMatchObject({ journey: 'push', payer_account: account, first_payment: null });
      expect(await outboxNames(subscription.subscription_id)).toEqual(['subscription.created.v1']);
    });

    test('qr: answers the QR code that authorizes; no payment before a cycle is due', async () => {
      const businessId = await h.newBusiness();
      const subscription = await subscribe(businessId, { journey: 'qr' });
      expect(subscription.authorization?.copia_e_cola).toEqual(expect.any(String));
      expect(await cyclesOf(businessId, subscription.subscription_id)).toEqual([]);
    });

    test('qr_with_first_payment: cycle 1 is a payment made with the subscription, paid by the same QR code', async () => {
      const businessId = await h.newBusiness();
      const subscription = await subscribe(businessId, {
        journey: 'qr_with_first_payment',
        start_date: inDays(0),
      });
      expect(subscription).toMatchObject({ next_cycle: 2, first_payment_id: expect.stringMatching(/^pay_/) });
      const [first] = await cyclesOf(businessId, subscription.subscription_id);
      expect(first).toMatchObject({
        payment_id: subscription.first_payment_id,
        subscription_id: subscription.subscription_id,
        cycle: 1,
        status: 'processing',
        amount_centavos: 9_990,
      });
      expect(await h.emittedPaymentEvents(first!.payment_id)).toEqual(['payment.created.v1']);
      // Paid by the QR code: a confirmed payment like any (the ledger credits it from payment.confirmed).
      await h.client.publish(pixChargePaid, aPixChargePaid(first!));
      await h.waitForPaymentStatus(businessId, first!.payment_id, 'paid');
      expect(await h.emittedPaymentEvents(first!.payment_id)).toEqual([
        'payment.created.v1',
        'payment.confirmed.v1',
      ]);
    });

    test('a replayed create answers the same subscription and opens one recurrence', async () => {
      const businessId = await h.newBusiness();
      const messageId = newPublicId('cmd');
      const first = await subscribe(businessId, {}, messageId);
      const second = await subscribe(businessId, {}, messageId);
      expect(second.subscription_id).toBe(first.subscription_id);
      const opens = h.rails
        .callsOf('pix.recurrence.open.v1')
        .filter((call) => call.payload.subscription_id === first.subscription_id);
      expect(new Set(opens.map((call) => call.messageId))).toEqual(new Set([`${messageId}:open-recurrence`]));
      const rows: unknown[] = await h.service.dataSource.query('SELECT 1 FROM subscriptions WHERE id = $1', [
        first.subscription_id,
      ]);
      expect(rows).toHaveLength(1);
    });
  });

  test('the database refuses a move the state machine does not allow, and a deletion', async () => {
    const businessId = await h.newBusiness();
    const subscription = await activated(businessId);
    const move = (status: string) =>
      h.service.dataSource.query(`UPDATE subscriptions SET status = $2 WHERE id = $1`, [
        subscription.subscription_id,
        status,
      ]);
    await expect(move('pending_authorization')).rejects.toThrow(
      /no move from active to pending_authorization/,
    );
    await h.service.dataSource.query(
      `UPDATE subscriptions SET status = 'expired', ended_at = now(), next_cycle = NULL, next_due_date = NULL
        WHERE id = $1`,
      [subscription.subscription_id],
    );
    await expect(move('active')).rejects.toThrow(/no move from expired to active/);
    await expect(
      h.service.dataSource.query('DELETE FROM subscriptions WHERE id = $1', [subscription.subscription_id]),
    ).rejects.toThrow(/never deleted/);
    await expect(
      h.service.dataSource.query(`UPDATE subscriptions SET status = 'cancelled' WHERE id = $1`, [
        subscription.subscription_id,
      ]),
    ).rejects.toThrow();
  });

  describe('authorization outcomes', () => {
    test('authorized activates it once, whatever the replays', async () => {
      const businessId = await h.newBusiness();
      const subscription = await subscribe(businessId);
      const messageId = newPublicId('msg');
      const event = changed(subscription);
      await publishAndAwaitHandling(h.env.config, pixRecurrenceChanged, event, { messageId });
      await publishAndAwaitHandling(h.env.config, pixRecurrenceChanged, event, { messageId });
      // Another delivery of the same outcome (a new message id: the adapter's poll) changes nothing either.
      await h.waitForHandled([await h.publishEvent(pixRecurrenceChanged, event)]);
      expect((await read(businessId, subscription.subscription_id)).status).toBe('active');
      expect(await outboxNames(subscription.subscription_id)).toEqual([
        'subscription.created.v1',
        'subscription.activated.v1',
      ]);
    });

    test('rejected cancels it by the payer, authorization_rejected; an outcome after its end changes nothing', async () => {
      const businessId = await h.newBusiness();
      const subscription = await subscribe(businessId);
      await h.waitForHandled([
        await h.publishEvent(
          pixRecurrenceChanged,
          changed(subscription, { outcome: 'rejected', reason_code: 'AP13' }),
        ),
      ]);
      await h.waitForHandled([await h.publishEvent(pixRecurrenceChanged, changed(subscription))]);
      expect(await read(businessId, subscription.subscription_id)).toMatchObject({
        status: 'cancelled',
        cancelled_by: 'payer',
        cancellation_reason: 'authorization_rejected',
        ended_at: expect.any(String),
      });
      expect(await outboxNames(subscription.subscription_id)).toEqual([
        'subscription.created.v1',
        'subscription.cancelled.v1',
      ]);
    });

    test('a poisoned outcome or attempt is parked, naming the field, and changes nothing', async () => {
      const businessId = await h.newBusiness();
      const subscription = await subscribe(businessId);
      const changedPoison = await h.publishPoisoned('events', pixRecurrenceChanged, changed(subscription), {
        outcome: 'paused',
      });
      expect(changedPoison.parked).toEqual([
        expect.objectContaining({
          messageId: changedPoison.messageId,
          reason: expect.stringContaining('outcome'),
        }),
      ]);
      const attemptPoison = await h.publishPoisoned(
        'events',
        pixCycleAttemptFailed,
        {
          subscription_id: subscription.subscription_id,
          payment_id: newPublicId('pay'),
          txid: 'txid',
          attempt: 1,
          reason_code: null,
          next_attempt_on: inDays(1),
        },
        { attempt: 9 },
      );
      expect(attemptPoison.parked).toEqual([
        expect.objectContaining({
          messageId: attemptPoison.messageId,
          reason: expect.stringContaining('attempt'),
        }),
      ]);
      expect(await outboxNames(subscription.subscription_id)).toEqual(['subscription.created.v1']);
    });

    test('after losing its broker connection the service consumes the outcomes again', async () => {
      const businessId = await h.newBusiness();
      const subscription = await subscribe(businessId);
      h.service.broker.dropConnectionForTesting();
      await h.client.publish(pixRecurrenceChanged, changed(subscription));
      await waitFor(
        async () => (await read(businessId, subscription.subscription_id)).status === 'active' || undefined,
        { what: 'the subscription active' },
      );
    });

    test('expired expires a subscription nobody authorized', async () => {
      const businessId = await h.newBusiness();
      const subscription = await subscribe(businessId);
      await h.waitForHandled([
        await h.publishEvent(pixRecurrenceChanged, changed(subscription, { outcome: 'expired' })),
      ]);
      expect((await read(businessId, subscription.subscription_id)).status).toBe('expired');
    });
  });

  describe('cycles', () => {
    test('the scheduler opens a cycle once on its send day, however many passes race for it', async () => {
      const businessId = await h.newBusiness();
      // Due in 5 days: its send day (7 days before) has come.
      const subscription = await activated(businessId, {
        start_date: inDays(5),
        journey: 'push',
        payer_account: {
          ispb: '12345678',
          branch: null,
          account: '1',
        },
      });
      for (let round = 0; round < 3; round += 1)
        await Promise.all([h.service.cycleScheduler.pass(), h.service.cycleScheduler.pass()]);
      const cycles = await cyclesOf(businessId, subscription.subscription_id);
      expect(cycles).toHaveLength(1);
      expect(cycles[0]).toMatchObject({
        cycle: 1,
        status: 'processing',
        subscription_id: subscription.subscription_id,
      });
      const opens = h.rails
        .callsOf('pix.cycle.open.v1')
        .filter((call) => call.payload.subscription_id === subscription.subscription_id);
      expect(new Set(opens.map((call) => call.payload.payment_id))).toEqual(new Set([cycles[0]!.payment_id]));
      expect(opens[0]!.payload).toMatchObject({ cycle: 1, due_date: inDays(5), amount_centavos: 9_990 });
      expect(await read(businessId, subscription.subscription_id)).toMatchObject({
        next_cycle: 2,
        next_due_date: cycleDueDate(inDays(5), 'monthly', 2),
      });
    });

    test('cycles the adapter refuses back off: 60 stuck subscriptions never keep a good one from opening', async () => {
      const businessId = await h.newBusiness();
      const stuck: SubscriptionRecord[] = [];
      for (let batch = 0; batch < 6; batch += 1)
        stuck.push(
          ...(await Promise.all(
            Array.from({ length: 10 }, () => activated(businessId, { start_date: inDays(5) })),
          )),
        );
      for (const subscription of stuck) h.rails.cycleOpenRefusals.add(subscription.subscription_id);
      // Due later than every stuck one: the pass reaches it only past them.
      const good = await activated(businessId, { start_date: inDays(6) });
      try {
        await h.service.cycleScheduler.pass();
        expect((await cyclesOf(businessId, good.subscription_id)).map((cycle) => cycle.cycle)).toEqual([1]);
        const rows: Array<{ failures: number; backing_off: boolean }> = await h.service.dataSource.query(
          `SELECT cycle_open_failures AS failures, cycle_open_retry_at > now() AS backing_off
             FROM subscriptions WHERE id = ANY($1)`,
          [stuck.map((subscription) => subscription.subscription_id)],
        );
        expect(rows.every((row) => row.failures === 1 && row.backing_off)).toBe(true);
        // Backing off: the next pass does not ask the adapter again for them.
        const opensBefore = h.rails.callsOf('pix.cycle.open.v1').length;
        await h.service.cycleScheduler.pass();
        const asked = h.rails
          .callsOf('pix.cycle.open.v1')
          .slice(opensBefore)
          .filter((call) => stuck.some((s) => s.subscription_id === call.payload.subscription_id));
        expect(asked).toEqual([]);
        // Due for a retry again, a failure waits longer.
        await h.service.dataSource.query(
          `UPDATE subscriptions SET cycle_open_retry_at = now() - interval '1 second' WHERE id = $1`,
          [stuck[0]!.subscription_id],
        );
        await h.service.cycleScheduler.pass();
        const [again] = (await h.service.dataSource.query(
          `SELECT cycle_open_failures AS failures, cycle_open_retry_at - now() > interval '90 seconds' AS longer
             FROM subscriptions WHERE id = $1`,
          [stuck[0]!.subscription_id],
        )) as Array<{ failures: number; longer: boolean }>;
        expect(again).toEqual({ failures: 2, longer: true });
      } finally {
        // Out of the way of the other tests' passes.
        for (const subscription of stuck) {
          h.rails.cycleOpenRefusals.delete(subscription.subscription_id);
          await h.request(cancelSubscription, {
            business_id: businessId,
            subscription_id: subscription.subscription_id,
          });
        }
      }
    }, 180_000);

    test('a cycle past its sending window is never sent: failed CYCLE_NOT_SENT, and the next one comes', async () => {
      const businessId = await h.newBusiness();
      // Authorized the day before cycle 1 is due (too late to send it 2 days before): the clock is one day short of it.
      const subscription = await activated(businessId, { start_date: inDays(5), interval: 'weekly' });
      await h.service.dataSource.query(`UPDATE subscriptions SET clock_date = $2 WHERE id = $1`, [
        subscription.subscription_id,
        inDays(4),
      ]);
      await h.service.cycleScheduler.pass();
      const cycles = await cyclesOf(businessId, subscription.subscription_id);
      expect(cycles.map((cycle) => [cycle.cycle, cycle.status, cycle.failure_code])).toEqual([
        [1, 'failed', 'CYCLE_NOT_SENT'],
      ]);
      expect(cycles[0]!.fee_centavos).toBe(0);
      expect(await h.emittedPaymentEvents(cycles[0]!.payment_id)).toEqual([
        'payment.created.v1',
        'payment.failed.v1',
      ]);
      expect(await read(businessId, subscription.subscription_id)).toMatchObject({
        status: 'active',
        next_cycle: 2,
        next_due_date: inDays(12),
      });
      // The next cycle opens on its send day as usual; cycle 1 was never sent to the adapter.
      await advance(businessId, subscription.subscription_id, inDays(5));
      expect(
        (await cyclesOf(businessId, subscription.subscription_id)).map((cycle) => [
          cycle.cycle,
          cycle.status,
        ]),
      ).toEqual([
        [1, 'failed'],
        [2, 'processing'],
      ]);
      const opens = h.rails
        .callsOf('pix.cycle.open.v1')
        .filter((call) => call.payload.subscription_id === subscription.subscription_id)
        .map((call) => call.payload.cycle);
      expect([...new Set(opens)]).toEqual([2]);
    });

    test('a cycle is not opened before its send day', async () => {
      const businessId = await h.newBusiness();
      const subscription = await activated(businessId, { start_date: inDays(8) });
      await h.service.cycleScheduler.pass();
      expect(await cyclesOf(businessId, subscription.subscription_id)).toEqual([]);
    });

    test("a varying subscription's next cycle asks the amount the merchant set, once; the cycle after asks its minimum", async () => {
      const businessId = await h.newBusiness();
      const varying = { amount_centavos: null, minimum_amount_centavos: 5_000, interval: 'weekly' as const };
      const subscription = await activated(businessId, { ...varying, start_date: inDays(10) });
      const id = subscription.subscription_id;
      const update = (amount: number | null) =>
        h.request(updateSubscription, {
          business_id: businessId,
          subscription_id: id,
          next_cycle_amount_centavos: amount,
        });
      const set = await update(18_740);
      expect(set.ok && set.result).toMatchObject({ next_cycle: 1, next_cycle_amount_centavos: 18_740 });
      const under = await update(4_999);
      expect(under.ok ? null : [under.error.code, under.error.message.includes('next_cycle_amount')]).toEqual(
        ['INVALID_FIELDS', true],
      );
      // Two cycles opened: the first asks what was set, the second its minimum again.
      await advance(businessId, id, inDays(11));
      const cycles = await cyclesOf(businessId, id);
      expect(cycles.map((cycle) => [cycle.cycle, cycle.amount_centavos])).toEqual([
        [1, 18_740],
        [2, 5_000],
      ]);
      const opens = h.rails
        .callsOf('pix.cycle.open.v1')
        .filter((call) => call.payload.subscription_id === id)
        .map((call) => [call.payload.cycle, call.payload.amount_centavos]);
      expect(new Set(opens.map((open) => JSON.stringify(open)))).toEqual(
        new Set([JSON.stringify([1, 18_740]), JSON.stringify([2, 5_000])]),
      );
      expect((await read(businessId, id)).next_cycle_amount_centavos).toBeNull();
      // Cycle 3's send day has come (7 days before it is due, a week after cycle 2): it is being sent with what it had.
      await h.service.dataSource.query(`UPDATE subscriptions SET clock_date = $2 WHERE id = $1`, [
        id,
        inDays(17),
      ]);
      const late = await update(20_000);
      expect(late.ok ? null : late.error.code).toBe('INVALID_STATUS');
    });

    test('a next cycle amount is refused for a fixed subscription, an ended one, and another business', async () => {
      const businessId = await h.newBusiness();
      const fixed = await activated(businessId, { start_date: inDays(10) });
      const ask = (subscriptionId: string, business = businessId) =>
        h.request(updateSubscription, {
          business_id: business,
          subscription_id: subscriptionId,
          next_cycle_amount_centavos: 12_000,
        });
      const fixedReply = await ask(fixed.subscription_id);
      expect(fixedReply.ok ? null : fixedReply.error.code).toBe('INVALID_FIELDS');
      const varying = await activated(businessId, {
        amount_centavos: null,
        minimum_amount_centavos: 5_000,
        start_date: inDays(10),
      });
      const other = await ask(varying.subscription_id, await h.newBusiness());
      expect(other.ok ? null : other.error.code).toBe('NOT_FOUND');
      await h.request(cancelSubscription, {
        business_id: businessId,
        subscription_id: varying.subscription_id,
      });
      const ended = await ask(varying.subscription_id);
      expect(ended.ok ? null : ended.error.code).toBe('INVALID_STATUS');
      // The database holds the rule whatever the code does: never under the minimum, never on a fixed subscription.
      await expect(
        h.service.dataSource.query(
          `UPDATE subscriptions SET next_cycle_amount_centavos = 100 WHERE id = $1`,
          [fixed.subscription_id],
        ),
      ).rejects.toThrow(/subscriptions_next_cycle_amount_varying/);
    });

    test('monthly due dates follow the start date, clamped to the month (Jan 31 -> Feb 28 -> Mar 31)', async () => {
      const businessId = await h.newBusiness();
      const year = Number(inDays(0).slice(0, 4)) + 1;
      const subscription = await activated(businessId, { start_date: `${year}-01-31` });
      await advance(businessId, subscription.subscription_id, `${year}-03-31`);
      const cycles = await cyclesOf(businessId, subscription.subscription_id);
      expect(cycles.map((cycle) => cycle.cycle)).toEqual([1, 2, 3]);
      const dueDates = h.rails
        .callsOf('pix.cycle.open.v1')
        .filter((call) => call.payload.subscription_id === subscription.subscription_id)
        .map((call) => call.payload.due_date);
      expect([...new Set(dueDates)]).toEqual([`${year}-01-31`, `${year}-02-28`, `${year}-03-31`]);
      const clocks = h.rails
        .callsOf('pix.recurrence.advance.v1')
        .filter((call) => call.payload.subscription_id === subscription.subscription_id)
        .map((call) => call.payload.to);
      // The PSP's clock stops at each send day, then reaches `to`.
      expect(clocks).toEqual([`${year}-01-24`, `${year}-02-21`, `${year}-03-24`, `${year}-03-31`]);
      expect(await read(businessId, subscription.subscription_id)).toMatchObject({
        current_date: `${year}-03-31`,
        next_cycle: 4,
        next_due_date: `${year}-04-30`,
      });
    });

    test('an advance answers at once; a move whose runner stopped is taken over by the scheduler where the clock stands', async () => {
      const businessId = await h.newBusiness();
      const subscription = await activated(businessId, { start_date: inDays(10) });
      // A runner that stopped half-way: the target asked for, its lease lapsed, the clock still at today.
      await h.service.dataSource.query(
        `UPDATE subscriptions SET clock_target = $2, clock_lease_until = now() - interval '1 second' WHERE id = $1`,
        [subscription.subscription_id, inDays(40)],
      );
      await h.service.cycleScheduler.pass();
      expect(await read(businessId, subscription.subscription_id)).toMatchObject({
        current_date: inDays(40),
        next_cycle: 3,
      });
      expect((await cyclesOf(businessId, subscription.subscription_id)).map((cycle) => cycle.cycle)).toEqual([
        1, 2,
      ]);
      // A lease another runner holds is left alone.
      await h.service.dataSource.query(
        `UPDATE subscriptions SET clock_target = $2, clock_lease_until = now() + interval '1 minute' WHERE id = $1`,
        [subscription.subscription_id, inDays(80)],
      );
      await h.service.cycleScheduler.pass();
      expect((await read(businessId, subscription.subscription_id)).current_date).toBe(inDays(40));
    });

    /** The clock, the target still asked for, and whether a runner holds the move, as stored. */

    test("a move asked before the payer's answer arrived waits at cycle 1's send day, and goes on once it is authorized", async () => {
      const businessId = await h.newBusiness();
      // The payer's bank is asked to authorize; the event saying it did is still on its way.
      const subscription = await subscribe(businessId, { start_date: inDays(10) });
      const id = subscription.subscription_id;
      const authorize = await h.request(simulateSubscription, {
        business_id: businessId,
        subscription_id: id,
        outcome: 'authorize',
      });
      expect(authorize.ok).toBe(true);
      const asked = await h.request(advanceSubscriptionClock, {
        business_id: businessId,
        subscription_id: id,
        to: inDays(45),
      });
      expect(asked.ok).toBe(true);
      // Past cycle 1's send day unauthorized, every cycle on the way would be past its window: never sent.
      const waiting = await waitFor(async () => {
        const clock = await clockOf(id);
        return clock.clock === inDays(3) && !clock.held ? clock : undefined;
      });
      expect(waiting.target).toBe(inDays(45));
      expect(await cyclesOf(businessId, id)).toEqual([]);
      await h.waitForHandled([await h.publishEvent(pixRecurrenceChanged, changed(subscription))]);
      const moved = await waitFor(async () => {
        const current = await read(businessId, id);
        return current.current_date === inDays(45) ? current : undefined;
      });
      expect(moved.status).toBe('active');
      const cycles = await cyclesOf(businessId, id);
      expect(cycles.map((cycle) => [cycle.cycle, cycle.status])).toEqual([
        [1, 'processing'],
        [2, 'processing'],
      ]);
    });

    test('a pending subscription nobody was asked to answer for moves freely: nobody authorized it in time', async () => {
      const businessId = await h.newBusiness();
      const subscription = await subscribe(businessId, { start_date: inDays(10) });
      const moved = await advance(businessId, subscription.subscription_id, inDays(45));
      expect(moved).toMatchObject({ current_date: inDays(45), status: 'pending_authorization' });
      expect(await cyclesOf(businessId, subscription.subscription_id)).toEqual([]);
    });

    test("a merchant's cancel while a move waits on a cycle's back-off lets the clock move on", async () => {
      const businessId = await h.newBusiness();
      const subscription = await activated(businessId, { start_date: inDays(10) });
      const id = subscription.subscription_id;
      h.rails.cycleOpenRefusals.add(id);
      try {
        await h.request(advanceSubscriptionClock, {
          business_id: businessId,
          subscription_id: id,
          to: inDays(45),
        });
        await waitFor(async () => {
          const clock = await clockOf(id);
          return clock.clock === inDays(3) && !clock.held && clock.failures > 0 ? clock : undefined;
        });
      } finally {
        h.rails.cycleOpenRefusals.delete(id);
      }
      const cancelled = await h.request(cancelSubscription, { business_id: businessId, subscription_id: id });
      expect(cancelled.ok && cancelled.result.status).toBe('cancelled');
      // Ended, it has no cycle to open: the scheduler takes the move up at once, back-off or not.
      await h.service.cycleScheduler.pass();
      expect(await clockOf(id)).toMatchObject({ clock: inDays(45), target: null, held: false });
    });

    test('a cycle the adapter does not open holds the move at its send day; past its back-off the scheduler moves on', async () => {
      const businessId = await h.newBusiness();
      const subscription = await activated(businessId, { start_date: inDays(10) });
      const id = subscription.subscription_id;
      h.rails.cycleOpenRefusals.add(id);
      try {
        const asked = await h.request(advanceSubscriptionClock, {
          business_id: businessId,
          subscription_id: id,
          to: inDays(45),
        });
        expect(asked.ok).toBe(true);
        const held = await waitFor(async () => {
          const clock = await clockOf(id);
          return clock.clock === inDays(3) && !clock.held && clock.failures > 0 ? clock : undefined;
        });
        // Not given up: the target stays, and the cycle was not passed unsent.
        expect(held.target).toBe(inDays(45));
        expect(await cyclesOf(businessId, id)).toEqual([]);
        // Backing off, the scheduler leaves the move alone.
        await h.service.cycleScheduler.pass();
        expect((await clockOf(id)).clock).toBe(inDays(3));
      } finally {
        h.rails.cycleOpenRefusals.delete(id);
      }
      await h.service.dataSource.query(
        `UPDATE subscriptions SET cycle_open_retry_at = now() - interval '1 second' WHERE id = $1`,
        [id],
      );
      await h.service.cycleScheduler.pass();
      expect(await clockOf(id)).toMatchObject({ clock: inDays(45), target: null, held: false, failures: 0 });
      expect((await cyclesOf(businessId, id)).map((cycle) => [cycle.cycle, cycle.status])).toEqual([
        [1, 'processing'],
        [2, 'processing'],
      ]);
    });

    test("a clock move's lease is renewed and let go only by the runner holding it", async () => {
      const businessId = await h.newBusiness();
      const subscription = await activated(businessId, { start_date: inDays(30) });
      const id = subscription.subscription_id;
      const { manager } = h.service.dataSource;
      await manager.query(`UPDATE subscriptions SET clock_target = $2 WHERE id = $1`, [id, inDays(3)]);
      expect(await claimClockMove(manager, id, 60_000, 'runner-a', false)).toBe(true);
      expect(await claimClockMove(manager, id, 60_000, 'runner-b', false)).toBe(false);
      expect(await claimClockMove(manager, id, 60_000, 'runner-a', true)).toBe(true);
      // Runner a stalls past its lease; runner b takes the move over.
      await manager.query(
        `UPDATE subscriptions SET clock_lease_until = now() - interval '1 second' WHERE id = $1`,
        [id],
      );
      expect(await claimClockMove(manager, id, 60_000, 'runner-b', false)).toBe(true);
      // Runner a wakes up: it can neither renew b's lease nor let it go.
      expect(await claimClockMove(manager, id, 60_000, 'runner-a', true)).toBe(false);
      await endClockMove(manager, id, 'runner-a');
      const lease = async () =>
        (
          (await manager.query(
            `SELECT clock_lease_owner AS owner, clock_target IS NOT NULL AS target FROM subscriptions WHERE id = $1`,
            [id],
          )) as Array<{ owner: string | null; target: boolean }>
        )[0];
      expect(await lease()).toEqual({ owner: 'runner-b', target: true });
      expect(await claimClockMove(manager, id, 60_000, 'runner-b', true)).toBe(true);
      await endClockMove(manager, id, 'runner-b');
      // Let go short of its target: the target stays for the next runner.
      expect(await lease()).toEqual({ owner: null, target: true });
      await manager.query(`UPDATE subscriptions SET clock_date = clock_target WHERE id = $1`, [id]);
      expect(await claimClockMove(manager, id, 60_000, 'runner-b', false)).toBe(true);
      await endClockMove(manager, id, 'runner-b');
      expect(await lease()).toEqual({ owner: null, target: false });
    });

    test('the sandbox clock never goes back', async () => {
      const businessId = await h.newBusiness();
      const subscription = await activated(businessId);
      await advance(businessId, subscription.subscription_id, inDays(3));
      const reply = await h.request(advanceSubscriptionClock, {
        business_id: businessId,
        subscription_id: subscription.subscription_id,
        to: inDays(2),
      });
      expect(reply.ok ? null : reply.error.code).toBe('INVALID_FIELDS');
    });

    test('the sandbox clock advances at most 5 years at a time', async () => {
      const businessId = await h.newBusiness();
      const subscription = await activated(businessId, { interval: 'weekly' });
      const ask = (to: string) =>
        h.request(advanceSubscriptionClock, {
          business_id: businessId,
          subscription_id: subscription.subscription_id,
          to,
        });
      for (const to of ['9999-12-31', inDays(5 * 365 + 2)]) {
        const reply = await ask(to);
        expect(reply.ok ? null : [reply.error.code, reply.error.message.includes('to')]).toEqual([
          'INVALID_FIELDS',
          true,
        ]);
      }
      const [row] = (await h.service.dataSource.query(
        'SELECT clock_target FROM subscriptions WHERE id = $1',
        [subscription.subscription_id],
      )) as Array<{ clock_target: string | null }>;
      expect(row!.clock_target).toBeNull();
    });

    test('past its end_date with no cycle left, it expires (subscription.expired)', async () => {
      const businessId = await h.newBusiness();
      const subscription = await activated(businessId, {
        interval: 'weekly',
        start_date: inDays(10),
        end_date: inDays(17),
      });
      const ended = await advance(businessId, subscription.subscription_id, inDays(18));
      expect(ended).toMatchObject({ status: 'expired', next_cycle: null });
      expect((await cyclesOf(businessId, subscription.subscription_id)).map((cycle) => cycle.cycle)).toEqual([
        1, 2,
      ]);
      expect(await outboxNames(subscription.subscription_id)).toEqual([
        'subscription.created.v1',
        'subscription.activated.v1',
        'subscription.expired.v1',
      ]);
    });

    test('a failed attempt with a retry to come is subscription.cycle_retry_scheduled; a replay says it once', async () => {
      const businessId = await h.newBusiness();
      const subscription = await activated(businessId, { start_date: inDays(3) });
      await advance(businessId, subscription.subscription_id, inDays(0));
      const [cycle] = await cyclesOf(businessId, subscription.subscription_id);
      const attempt = {
        subscription_id: subscription.subscription_id,
        payment_id: cycle!.payment_id,
        txid: cycle!.external_id!,
        attempt: 1,
        reason_code: 'AM04',
        next_attempt_on: inDays(4),
      };
      const messageId = newPublicId('msg');
      await publishAndAwaitHandling(h.env.config, pixCycleAttemptFailed, attempt, { messageId });
      await publishAndAwaitHandling(h.env.config, pixCycleAttemptFailed, attempt, { messageId });
      // The last attempt (no retry) announces nothing here: the payment's closure does.
      await h.waitForHandled([
        await h.publishEvent(pixCycleAttemptFailed, { ...attempt, attempt: 4, next_attempt_on: null }),
      ]);
      const rows: Array<{ retry: unknown }> = await h.service.dataSource.query(
        `SELECT envelope->'payload'->'retry' AS retry FROM outbox
          WHERE name = 'subscription.cycle_retry_scheduled.v1'
            AND envelope->'payload'->'subscription'->>'subscription_id' = $1`,
        [subscription.subscription_id],
      );
      expect(rows.map((row) => row.retry)).toEqual([
        {
          payment_id: cycle!.payment_id,
          cycle: 1,
          attempt: 1,
          reason_code: 'AM04',
          next_attempt_on: inDays(4),
        },
      ]);
    });

    test('a cycle that can no longer be debited fails AUTOMATIC_DEBIT_FAILED', async () => {
      const businessId = await h.newBusiness();
      const subscription = await activated(businessId, { start_date: inDays(3) });
      await advance(businessId, subscription.subscription_id, inDays(0));
      const [cycle] = await cyclesOf(businessId, subscription.subscription_id);
      await h.client.publish(
        pixChargeClosed,
        aPixChargeClosed(cycle!, { reason: 'failed', cause: 'debit_failed', detail: 'saldo insuficiente' }),
      );
      const failed = await h.waitForPaymentStatus(businessId, cycle!.payment_id, 'failed');
      expect(failed.payment.failure_code).toBe('AUTOMATIC_DEBIT_FAILED');
      // The subscription goes on: the next cycle is still to come.
      expect((await read(businessId, subscription.subscription_id)).status).toBe('active');
    });

    test('a cycle the payer cancelled (cause cycle_cancelled) is cancelled, not failed', async () => {
      const businessId = await h.newBusiness();
      const subscription = await activated(businessId, { start_date: inDays(3) });
      await advance(businessId, subscription.subscription_id, inDays(0));
      const [cycle] = await cyclesOf(businessId, subscription.subscription_id);
      await h.client.publish(
        pixChargeClosed,
        aPixChargeClosed(cycle!, {
          reason: 'failed',
          cause: 'cycle_cancelled',
          detail: 'cancelado pelo pagador',
        }),
      );
      const cancelled = await h.waitForPaymentStatus(businessId, cycle!.payment_id, 'cancelled');
      expect(cancelled.payment.failure_code).toBeNull();
    });

    test('fail_next_cycle is sent to the PSP when the next cycle opens; pay_next_cycle before that clears it', async () => {
      const businessId = await h.newBusiness();
      const simulate = (subscriptionId: string, outcome: 'fail_next_cycle' | 'pay_next_cycle') =>
        h.request(simulateSubscription, {
          business_id: businessId,
          subscription_id: subscriptionId,
          outcome,
        });
      const failing = await activated(businessId, { start_date: inDays(20) });
      expect((await simulate(failing.subscription_id, 'fail_next_cycle')).ok).toBe(true);
      const paying = await activated(businessId, { start_date: inDays(20) });
      await simulate(paying.subscription_id, 'fail_next_cycle');
      await simulate(paying.subscription_id, 'pay_next_cycle');
      await advance(businessId, failing.subscription_id, inDays(13));
      await advance(businessId, paying.subscription_id, inDays(13));
      const failsOf = (subscriptionId: string) =>
        h.rails
          .callsOf('pix.recurrence.simulate.v1')
          .filter((call) => call.payload.subscription_id === subscriptionId)
          .map((call) => call.payload.outcome);
      expect(failsOf(failing.subscription_id)).toEqual(['fail_next_cycle']);
      expect(failsOf(paying.subscription_id)).toEqual([]);
    });
  });

  describe('cancel', () => {
    test('the merchant cancels at the PSP, then here; the open cycle not yet due is cancelled with it', async () => {
      const businessId = await h.newBusiness();
      const subscription = await activated(businessId, { start_date: inDays(20) });
      await advance(businessId, subscription.subscription_id, inDays(13));
      const [cycle] = await cyclesOf(businessId, subscription.subscription_id);
      const reply = await h.request(cancelSubscription, {
        business_id: businessId,
        subscription_id: subscription.subscription_id,
      });
      expect(reply.ok && reply.result).toMatchObject({
        status: 'cancelled',
        cancelled_by: 'merchant',
        cancellation_reason: 'requested',
      });
      expect(
        h.rails
          .callsOf('pix.recurrence.cancel.v1')
          .some((call) => call.payload.subscription_id === subscription.subscription_id),
      ).toBe(true);
      expect((await h.readPayment(businessId, cycle!.payment_id)).payment.status).toBe('cancelled');
      const again = await h.request(cancelSubscription, {
        business_id: businessId,
        subscription_id: subscription.subscription_id,
      });
      expect(again.ok ? null : again.error.code).toBe('INVALID_STATUS');
    });

    test('a cancel landing while a cycle is being opened: the cycle opened at the PSP still has its payment, cancelled with the subscription', async () => {
      const businessId = await h.newBusiness();
      const subscription = await activated(businessId, { start_date: inDays(20) });
      const id = subscription.subscription_id;
      let cancel: Awaited<ReturnType<typeof h.request>> | undefined;
      h.rails.whileOpeningCycle = async (subscriptionId) => {
        if (subscriptionId !== id || cancel) return;
        cancel = await h.request(cancelSubscription, { business_id: businessId, subscription_id: id });
      };
      try {
        await advance(businessId, id, inDays(13));
      } finally {
        h.rails.whileOpeningCycle = undefined;
      }
      expect(cancel?.ok && cancel.result).toMatchObject({ status: 'cancelled', cancelled_by: 'merchant' });
      // The adapter opened cycle 1 (its cobr is at the PSP): its payment is recorded, and cancelled with the
      // subscription, so the adapter removes the cobr; the subscription stays cancelled, no cycle after it.
      const opened = h.rails
        .callsOf('pix.cycle.open.v1')
        .filter((call) => call.payload.subscription_id === id);
      expect(opened.map((call) => call.payload.cycle)).toEqual([1]);
      const cycles = await cyclesOf(businessId, id);
      expect(cycles.map(({ cycle, status, payment_id }) => ({ cycle, status, payment_id }))).toEqual([
        { cycle: 1, status: 'cancelled', payment_id: opened[0]!.payload.payment_id },
      ]);
      expect(await h.emittedPaymentEvents(cycles[0]!.payment_id)).toEqual([
        'payment.created.v1',
        'payment.cancelled.v1',
      ]);
      expect(await read(businessId, id)).toMatchObject({ status: 'cancelled', next_cycle: null });
    });

    /**
     * Moves the clock of a subscription whose cycle 1 is due in 20 days past its send day, with the adapter as `rails`
     * play it, until cycle 1 was asked and its ask failed (refused, or its answer lost), the ask still pending.
     */
    async function askedCycleOne(businessId: string, id: string): Promise<void> {
      const asked = await h.request(advanceSubscriptionClock, {
        business_id: businessId,
        subscription_id: id,
        to: inDays(13),
      });
      expect(asked.ok).toBe(true);
      await waitFor(async () => ((await clockOf(id)).failures > 0 ? true : undefined), {
        what: `cycle 1 of ${id} asked, and its ask failed`,
      });
      expect(await openingOf(id)).toEqual({ cycle: 1, amount: 9_990 });
    }

    describe('a cycle asked of the adapter and never recorded, then the subscription cancelled', () => {
      /** Cycle 1 asked and its ask failed (`askedCycleOne`), then the subscription cancelled by the merchant. */
      async function askCycleOne(businessId: string, id: string): Promise<void> {
        await askedCycleOne(businessId, id);
        const reply = await h.request(cancelSubscription, { business_id: businessId, subscription_id: id });
        expect(reply.ok && reply.result).toMatchObject({ status: 'cancelled', cancelled_by: 'merchant' });
        expect(await cyclesOf(businessId, id)).toEqual([]);
        // Past the wait for an answer still on its way.
        await h.service.dataSource.query(
          `UPDATE subscription_cycle_openings SET asked_at = now() - interval '1 hour' WHERE subscription_id = $1`,
          [id],
        );
      }

      test('its answer lost: the scheduler asks again, and the cobr the adapter opened gets its payment, cancelled', async () => {
        const businessId = await h.newBusiness();
        const id = (await activated(businessId, { start_date: inDays(20) })).subscription_id;
        h.rails.cycleOpensAnsweredLate.add(id);
        try {
          await askCycleOne(businessId, id);
        } finally {
          h.rails.cycleOpensAnsweredLate.delete(id);
        }
        await h.service.cycleScheduler.pass();
        const opens = h.rails
          .callsOf('pix.cycle.open.v1')
          .filter((call) => call.payload.subscription_id === id);
        // Asked twice as one message: the adapter's inbox answers the cobr it opened the first time.
        expect(opens.length).toBeGreaterThanOrEqual(2);
        expect(new Set(opens.map((call) => call.messageId)).size).toBe(1);
        const cycles = await cyclesOf(businessId, id);
        expect(
          cycles.map(({ cycle, status, amount_centavos, external_id }) => ({
            cycle,
            status,
            amount_centavos,
            external_id,
          })),
        ).toEqual([
          { cycle: 1, status: 'cancelled', amount_centavos: 9_990, external_id: expect.any(String) },
        ]);
        expect(cycles[0]!.payment_id).toBe(opens[0]!.payload.payment_id);
        expect(await h.emittedPaymentEvents(cycles[0]!.payment_id)).toEqual([
          'payment.created.v1',
          'payment.cancelled.v1',
        ]);
        expect(await openingOf(id)).toBeNull();
        // Settled once: the next pass asks nothing more.
        await h.service.cycleScheduler.pass();
        expect(
          h.rails.callsOf('pix.cycle.open.v1').filter((call) => call.payload.subscription_id === id),
        ).toHaveLength(opens.length);
      });

      test('the adapter refused it: asked again, it opens none, and the ask is forgotten with no payment', async () => {
        const businessId = await h.newBusiness();
        const id = (await activated(businessId, { start_date: inDays(20) })).subscription_id;
        h.rails.cycleOpenRefusals.add(id);
        try {
          await askCycleOne(businessId, id);
          await h.service.cycleScheduler.pass();
        } finally {
          h.rails.cycleOpenRefusals.delete(id);
        }
        expect(
          h.rails.callsOf('pix.cycle.open.v1').filter((call) => call.payload.subscription_id === id).length,
        ).toBeGreaterThanOrEqual(2);
        expect(await cyclesOf(businessId, id)).toEqual([]);
        expect(await openingOf(id)).toBeNull();
      });
    });

    describe('a cycle asked of the adapter and never recorded, then its sending window passed', () => {
      /**
       * Cycle 1 (due in 20 days) asked on its send day and its answer lost; then the subscription's clock is one day
       * short of the due date, past the last day to send it.
       */
      async function askedThenTooLate(businessId: string, id: string): Promise<void> {
        h.rails.cycleOpensAnsweredLate.add(id);
        try {
          await askedCycleOne(businessId, id);
        } finally {
          h.rails.cycleOpensAnsweredLate.delete(id);
        }
        await h.service.dataSource.query(
          `UPDATE subscriptions SET clock_date = $2, clock_target = NULL, cycle_open_retry_at = NULL WHERE id = $1`,
          [id, inDays(19)],
        );
      }

      const opensOf = (id: string) =>
        h.rails.callsOf('pix.cycle.open.v1').filter((call) => call.payload.subscription_id === id);

      test('the adapter opened it: asked again, its cobr gets its payment, not a CYCLE_NOT_SENT one', async () => {
        const businessId = await h.newBusiness();
        const id = (await activated(businessId, { start_date: inDays(20) })).subscription_id;
        await askedThenTooLate(businessId, id);
        await h.service.cycleScheduler.pass();
        const opens = opensOf(id);
        expect(opens.length).toBeGreaterThanOrEqual(2);
        expect(new Set(opens.map((call) => call.messageId)).size).toBe(1);
        const cycles = await cyclesOf(businessId, id);
        expect(cycles.map(({ cycle, status, external_id }) => ({ cycle, status, external_id }))).toEqual([
          { cycle: 1, status: 'processing', external_id: expect.any(String) },
        ]);
        expect(await openingOf(id)).toBeNull();
        expect(await read(businessId, id)).toMatchObject({ status: 'active', next_cycle: 2 });
      });

      test('asked again with no answer, or an answer that says nothing of the PSP: nothing is recorded and the ask stays pending until the adapter answers', async () => {
        const businessId = await h.newBusiness();
        const id = (await activated(businessId, { start_date: inDays(20) })).subscription_id;
        await askedThenTooLate(businessId, id);
        /** Nothing recorded, the ask still pending; the back-off it took is cut short for the next pass. */
        const stillPending = async () => {
          expect(await cyclesOf(businessId, id)).toEqual([]);
          expect(await openingOf(id)).toEqual({ cycle: 1, amount: 9_990 });
          await h.service.dataSource.query(
            `UPDATE subscriptions SET cycle_open_retry_at = NULL WHERE id = $1`,
            [id],
          );
        };
        const failuresBefore = (await clockOf(id)).failures;
        h.rails.silent = true;
        try {
          await h.service.cycleScheduler.pass();
        } finally {
          h.rails.silent = false;
        }
        expect((await clockOf(id)).failures).toBe(failuresBefore + 1);
        await stillPending();
        h.rails.refusal = 'INTERNAL_ERROR';
        try {
          await h.service.cycleScheduler.pass();
        } finally {
          h.rails.refusal = undefined;
        }
        expect((await clockOf(id)).failures).toBe(failuresBefore + 2);
        await stillPending();
        await h.service.cycleScheduler.pass();
        expect((await cyclesOf(businessId, id)).map(({ cycle, status }) => [cycle, status])).toEqual([
          [1, 'processing'],
        ]);
        expect(await openingOf(id)).toBeNull();
        expect(await read(businessId, id)).toMatchObject({ status: 'active', next_cycle: 2 });
      });

      test('the adapter opened none (the PSP refuses one this late): recorded as never sent', async () => {
        const businessId = await h.newBusiness();
        const id = (await activated(businessId, { start_date: inDays(20) })).subscription_id;
        h.rails.cycleOpenRefusals.add(id);
        try {
          await askedThenTooLate(businessId, id);
          await h.service.cycleScheduler.pass();
        } finally {
          h.rails.cycleOpenRefusals.delete(id);
        }
        const cycles = await cyclesOf(businessId, id);
        expect(cycles.map((cycle) => [cycle.cycle, cycle.status, cycle.failure_code])).toEqual([
          [1, 'failed', 'CYCLE_NOT_SENT'],
        ]);
        expect(await openingOf(id)).toBeNull();
        expect(await read(businessId, id)).toMatchObject({ status: 'active', next_cycle: 2 });
      });
    });

    test('a recurrence the PSP ended already is not cancelled by the merchant: INVALID_STATUS, the PSP event ends it', async () => {
      const businessId = await h.newBusiness();
      const subscription = await activated(businessId, { start_date: inDays(20) });
      h.rails.recurrenceCancelRefusal = 'INVALID_STATUS';
      try {
        const reply = await h.request(cancelSubscription, {
          business_id: businessId,
          subscription_id: subscription.subscription_id,
        });
        expect(reply.ok ? null : reply.error.code).toBe('INVALID_STATUS');
      } finally {
        h.rails.recurrenceCancelRefusal = undefined;
      }
      expect((await read(businessId, subscription.subscription_id)).status).toBe('active');
      await h.waitForHandled([
        await h.publishEvent(
          pixRecurrenceChanged,
          changed(subscription, { outcome: 'cancelled', cancelled_by: 'payer', reason_code: 'ACCL' }),
        ),
      ]);
      expect(await read(businessId, subscription.subscription_id)).toMatchObject({
        status: 'cancelled',
        cancelled_by: 'payer',
      });
    });

    test.each(['merchant', 'rejected'] as const)(
      "journey 3's unpaid first payment (due today) is cancelled when the subscription ends (%s); a paid one stays paid",
      async (how) => {
        const businessId = await h.newBusiness();
        const end = async (subscription: SubscriptionRecord) => {
          if (how === 'merchant') {
            const reply = await h.request(cancelSubscription, {
              business_id: businessId,
              subscription_id: subscription.subscription_id,
            });
            expect(reply.ok && reply.result.status).toBe('cancelled');
          } else
            await h.waitForHandled([
              await h.publishEvent(pixRecurrenceChanged, changed(subscription, { outcome: 'rejected' })),
            ]);
        };
        const unpaid = await subscribe(businessId, {
          journey: 'qr_with_first_payment',
          start_date: inDays(0),
        });
        await end(unpaid);
        const first = await h.readPayment(businessId, unpaid.first_payment_id!);
        expect(first.payment.status).toBe('cancelled');
        expect(await h.emittedPaymentEvents(unpaid.first_payment_id!)).toEqual([
          'payment.created.v1',
          'payment.cancelled.v1',
        ]);
        const paid = await subscribe(businessId, { journey: 'qr_with_first_payment', start_date: inDays(0) });
        const [cycle] = await cyclesOf(businessId, paid.subscription_id);
        await h.client.publish(pixChargePaid, aPixChargePaid(cycle!));
        await h.waitForPaymentStatus(businessId, cycle!.payment_id, 'paid');
        await end(paid);
        expect((await h.readPayment(businessId, cycle!.payment_id)).payment.status).toBe('paid');
      },
    );

    test('journey 3 whose QR code expired unpaid expires (subscription.expired), its first payment cancelled', async () => {
      const businessId = await h.newBusiness();
      const subscription = await subscribe(businessId, {
        journey: 'qr_with_first_payment',
        start_date: inDays(60),
      });
      const waiting = await subscribe(businessId, {
        journey: 'qr_with_first_payment',
        start_date: inDays(60),
      });
      await h.service.dataSource.query(
        `UPDATE subscriptions
            SET authorization_instructions = jsonb_set(authorization_instructions, '{expires_at}', to_jsonb($2::text))
          WHERE id = $1`,
        [subscription.subscription_id, new Date(Date.now() - 1000).toISOString()],
      );
      await h.service.cycleScheduler.pass();
      expect(await read(businessId, subscription.subscription_id)).toMatchObject({
        status: 'expired',
        next_cycle: null,
      });
      expect(await outboxNames(subscription.subscription_id)).toEqual([
        'subscription.created.v1',
        'subscription.expired.v1',
      ]);
      expect((await h.readPayment(businessId, subscription.first_payment_id!)).payment.status).toBe(
        'cancelled',
      );
      // One whose QR code is still payable waits.
      expect((await read(businessId, waiting.subscription_id)).status).toBe('pending_authorization');
    });

    test("another business's subscription is NOT_FOUND", async () => {
      const businessId = await h.newBusiness();
      const subscription = await subscribe(businessId);
      const other = await h.newBusiness();
      const reply = await h.request(cancelSubscription, {
        business_id: other,
        subscription_id: subscription.subscription_id,
      });
      expect(reply.ok ? null : reply.error.code).toBe('NOT_FOUND');
      const read = await h.request(getSubscription, {
        business_id: other,
        subscription_id: subscription.subscription_id,
      });
      expect(read.ok ? null : read.error.code).toBe('NOT_FOUND');
    });

    test('a debit the PSP settled before the cancel stays paid; the subscription is cancelled after it', async () => {
      const businessId = await h.newBusiness();
      const subscription = await activated(businessId, { start_date: inDays(20) });
      await advance(businessId, subscription.subscription_id, inDays(13));
      const [cycle] = await cyclesOf(businessId, subscription.subscription_id);
      await h.client.publish(pixChargePaid, aPixChargePaid(cycle!));
      await h.waitForPaymentStatus(businessId, cycle!.payment_id, 'paid');
      const reply = await h.request(cancelSubscription, {
        business_id: businessId,
        subscription_id: subscription.subscription_id,
      });
      expect(reply.ok && reply.result.status).toBe('cancelled');
      expect((await h.readPayment(businessId, cycle!.payment_id)).payment.status).toBe('paid');
    });

    test('a debit reported after the cancel finds the cycle cancelled: its money is kept as late funds', async () => {
      const businessId = await h.newBusiness();
      const subscription = await activated(businessId, { start_date: inDays(20) });
      await advance(businessId, subscription.subscription_id, inDays(13));
      const [cycle] = await cyclesOf(businessId, subscription.subscription_id);
      await h.request(cancelSubscription, {
        business_id: businessId,
        subscription_id: subscription.subscription_id,
      });
      await h.waitForHandled([await h.publishEvent(pixChargePaid, aPixChargePaid(cycle!))]);
      expect((await h.readPayment(businessId, cycle!.payment_id)).payment.status).toBe('cancelled');
      expect((await h.receivedFunds(cycle!.payment_id)).map((funds) => funds.kind)).toEqual(['late']);
    });

    test('a debit the PSP made before the cancel, reported after it, is a paid cycle: the PSP kept the cycle', async () => {
      const businessId = await h.newBusiness();
      const subscription = await activated(businessId, { start_date: inDays(20) });
      await advance(businessId, subscription.subscription_id, inDays(13));
      const [cycle] = await cyclesOf(businessId, subscription.subscription_id);
      // Not yet due by this clock, but debited at the PSP (whose clock moved first): its cancel there was refused.
      h.rails.cyclesKeptAtCancel.add(cycle!.payment_id);
      try {
        const cancelled = await h.request(cancelSubscription, {
          business_id: businessId,
          subscription_id: subscription.subscription_id,
        });
        expect(cancelled.ok && cancelled.result.status).toBe('cancelled');
      } finally {
        h.rails.cyclesKeptAtCancel.delete(cycle!.payment_id);
      }
      expect((await h.readPayment(businessId, cycle!.payment_id)).payment.status).toBe('processing');
      await h.waitForHandled([await h.publishEvent(pixChargePaid, aPixChargePaid(cycle!))]);
      expect((await h.readPayment(businessId, cycle!.payment_id)).payment.status).toBe('paid');
      expect(await h.receivedFunds(cycle!.payment_id)).toEqual([]);
    });

    test('a cancel racing a debit ends in one consistent state', async () => {
      const businessId = await h.newBusiness();
      const subscription = await activated(businessId, { start_date: inDays(20) });
      await advance(businessId, subscription.subscription_id, inDays(13));
      const [cycle] = await cyclesOf(businessId, subscription.subscription_id);
      const [debit, cancel] = await Promise.all([
        h.publishEvent(pixChargePaid, aPixChargePaid(cycle!)),
        h.request(cancelSubscription, {
          business_id: businessId,
          subscription_id: subscription.subscription_id,
        }),
      ]);
      await h.waitForHandled([debit]);
      expect(cancel.ok && cancel.result.status).toBe('cancelled');
      const payment = (await h.readPayment(businessId, cycle!.payment_id)).payment;
      const late = (await h.receivedFunds(cycle!.payment_id)).map((funds) => funds.kind);
      // Either the debit won (paid, nothing held) or the cancel did (cancelled, the money held as late funds).
      expect([payment.status, late]).toEqual(
        payment.status === 'paid' ? ['paid', []] : ['cancelled', ['late']],
      );
    });
  });

  test('payments list by subscription; a payment of no subscription has none', async () => {
    const businessId = await h.newBusiness();
    const plain = await h.createPayment(businessId);
    expect(plain.payment).not.toHaveProperty('subscription_id');
    const subscription = await subscribe(businessId, {
      journey: 'qr_with_first_payment',
      start_date: inDays(0),
    });
    const cycles = await cyclesOf(businessId, subscription.subscription_id);
    expect(cycles.map((cycle) => cycle.payment_id)).toEqual([subscription.first_payment_id]);
  });
});

describe('subscriptions in production: no clock of their own', () => {
  const h = paymentServiceForTheseTests('payment-subscriptions-production', { APP_ENV: 'production' });
  const { activated, cyclesOf } = subscriptionSteps(h);

  test("the scheduler finds a cycle on its send day by São Paulo's day as the database reckons it, and opens it; one whose send day is tomorrow waits", async () => {
    // Its loop stopped (waiting out a pass in progress, the one at start): only the test's passes run.
    await h.service.cycleScheduler.stop();
    const businessId = await h.newBusiness();
    // Cycle 1 due in 8 days: its send day (7 days before) is tomorrow.
    const early = await activated(businessId, { start_date: inDays(8), interval: 'weekly' });
    // Cycle 1 due in 7 days: its send day is today.
    const due = await activated(businessId, { start_date: inDays(7), interval: 'weekly' });
    const clocks: Array<{ clock: string | null }> = await h.service.dataSource.query(
      `SELECT clock_date::text AS clock FROM subscriptions WHERE id = ANY($1)`,
      [[early.subscription_id, due.subscription_id]],
    );
    expect(clocks).toEqual([{ clock: null }, { clock: null }]);
    expect(await cyclesOf(businessId, due.subscription_id)).toEqual([]);
    await h.service.cycleScheduler.pass();
    expect(await cyclesOf(businessId, early.subscription_id)).toEqual([]);
    expect(
      (await cyclesOf(businessId, due.subscription_id)).map((cycle) => [cycle.cycle, cycle.status]),
    ).toEqual([[1, 'processing']]);
  });
});
