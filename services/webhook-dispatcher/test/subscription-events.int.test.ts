import {
  newPublicId,
  publicSubscriptionRecord,
  subscriptionActivated,
  subscriptionCreated,
  subscriptionCycleRetryScheduled,
  type SubscriptionEventPayload,
  type SubscriptionRecord,
} from '@gateway/contracts';
import { createEnvelope } from '@gateway/messaging';
import { waitFor, waitForParkedMessages } from '@gateway/testkit';
import { answers } from './support/receiver';
import { Harness, uniquePath } from './support/harness';

describe('subscription.*.v1 events become the public subscription.* events', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await Harness.create('webhook-subscription-events');
    await harness.startDispatcher();
  });

  afterAll(() => harness.close());

  const anEvent = (
    businessId: string,
    overrides: Partial<SubscriptionRecord> = {},
  ): SubscriptionEventPayload => {
    const now = new Date().toISOString();
    return {
      event_id: newPublicId('evt'),
      business_id: businessId,
      occurred_at: now,
      subscription: {
        subscription_id: newPublicId('sub'),
        business_id: businessId,
        customer_id: newPublicId('cust'),
        status: 'pending_authorization',
        amount_centavos: 9990,
        minimum_amount_centavos: null,
        interval: 'monthly',
        start_date: '2030-01-10',
        end_date: null,
        description: 'Plano mensal',
        retry_policy: 'three_in_seven_days',
        journey: 'push',
        metadata: null,
        authorization: null,
        first_payment_id: null,
        next_cycle: 1,
        next_due_date: '2030-01-10',
        current_date: '2030-01-01',
        cancelled_by: null,
        cancellation_reason: null,
        ended_at: null,
        created_at: now,
        updated_at: now,
        ...overrides,
      },
    };
  };

  test('a subscribed webhook receives each once: the subscription in BRL, and a retry with its attempt', async () => {
    const businessId = newPublicId('biz');
    const path = uniquePath('subscriptions');
    await harness.createWebhook(businessId, harness.receiver.route(path, answers.status(200)), [
      'subscription.created',
      'subscription.activated',
      'subscription.cycle_retry_scheduled',
    ]);
    const created = createEnvelope(subscriptionCreated, anEvent(businessId));
    await harness.client.publishEnvelope(created, {});
    // The same event twice (an outbox replay): one delivery.
    await harness.client.publishEnvelope(created, {});
    const active = { ...created.payload.subscription, status: 'active' as const };
    await harness.client.publishEnvelope(
      createEnvelope(subscriptionActivated, { ...anEvent(businessId), subscription: active }),
      {},
    );
    const retry = {
      payment_id: newPublicId('pay'),
      cycle: 1,
      attempt: 1,
      reason_code: 'AM04',
      next_attempt_on: '2030-01-11',
    };
    await harness.client.publishEnvelope(
      createEnvelope(subscriptionCycleRetryScheduled, {
        ...anEvent(businessId),
        subscription: active,
        retry,
      }),
      {},
    );
    const bodies = await waitFor(
      () => {
        const hits = harness.receiver.hitsTo(path);
        return hits.length >= 3 ? hits.map((hit) => JSON.parse(String(hit.body))) : undefined;
      },
      { what: 'the three subscription deliveries' },
    );
    expect(bodies.map((body: { type: string; data: unknown }) => [body.type, body.data])).toEqual(
      expect.arrayContaining([
        ['subscription.created', publicSubscriptionRecord(created.payload.subscription)],
        ['subscription.activated', publicSubscriptionRecord(active)],
        ['subscription.cycle_retry_scheduled', { ...publicSubscriptionRecord(active), retry }],
      ]),
    );
    expect(bodies[0].data).toMatchObject({
      amount_brl: 99.9,
      authorization: { journey: 'push', qr_code: null },
    });
    await harness.workerCaughtUp();
    expect(harness.receiver.hitsTo(path)).toHaveLength(3);
  });

  test('a poison subscription event is parked, never delivered', async () => {
    const envelope = createEnvelope(subscriptionCreated, anEvent(newPublicId('biz')));
    const broken = { ...envelope, payload: { ...envelope.payload, subscription: { status: 'paused' } } };
    await harness.client.publishEnvelope(broken as never, {});
    const parked = await waitForParkedMessages(
      `${harness.env.config.AMQP_PREFIX}webhook-dispatcher.events.parking`,
      'the parked event',
    );
    expect(parked).toEqual([expect.objectContaining({ messageId: envelope.id })]);
    expect(await harness.eventKept(envelope.payload.event_id)).toBe(false);
  });
});
