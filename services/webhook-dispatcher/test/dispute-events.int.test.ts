import {
  disputeClosed,
  disputeCreated,
  newPublicId,
  publicDisputeRecord,
  type DisputeEventPayload,
  type DisputeRecord,
} from '@gateway/contracts';
import { createEnvelope } from '@gateway/messaging';
import { waitFor, waitForParkedMessages } from '@gateway/testkit';
import { answers } from './support/receiver';
import { Harness, uniquePath } from './support/harness';

describe('dispute.*.v1 events become the public dispute.created / dispute.closed', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await Harness.create('webhook-dispute-events');
    await harness.startDispatcher();
  });

  afterAll(() => harness.close());

  const aDisputeEvent = (businessId: string, dispute: Partial<DisputeRecord> = {}): DisputeEventPayload => {
    const now = new Date().toISOString();
    return {
      event_id: newPublicId('evt'),
      business_id: businessId,
      occurred_at: now,
      dispute: {
        dispute_id: newPublicId('dsp'),
        payment_id: newPublicId('pay'),
        business_id: businessId,
        method: 'pix',
        amount_centavos: 4000,
        status: 'open',
        reason: 'MED_FRAUDE',
        created_at: now,
        updated_at: now,
        ...dispute,
      },
    };
  };

  test('a subscribed webhook receives each once, its data the dispute as the API shows it', async () => {
    const businessId = newPublicId('biz');
    const path = uniquePath('disputes');
    await harness.createWebhook(businessId, harness.receiver.route(path, answers.status(200)), [
      'dispute.created',
      'dispute.closed',
    ]);
    const created = createEnvelope(disputeCreated, aDisputeEvent(businessId));
    await harness.client.publishEnvelope(created, {});
    // The same event twice (an outbox replay): one delivery.
    await harness.client.publishEnvelope(created, {});
    const closed = aDisputeEvent(businessId, { ...created.payload.dispute, status: 'lost' });
    await harness.client.publishEnvelope(createEnvelope(disputeClosed, closed), {});
    const bodies = await waitFor(
      () => {
        const hits = harness.receiver.hitsTo(path);
        return hits.length >= 2 ? hits.map((hit) => JSON.parse(String(hit.body))) : undefined;
      },
      { what: 'both dispute deliveries' },
    );
    expect(bodies.map((body: { type: string; data: unknown }) => [body.type, body.data])).toEqual(
      expect.arrayContaining([
        ['dispute.created', publicDisputeRecord(created.payload.dispute)],
        ['dispute.closed', publicDisputeRecord(closed.dispute)],
      ]),
    );
    await harness.workerCaughtUp();
    expect(harness.receiver.hitsTo(path)).toHaveLength(2);
  });

  test('a poison dispute event is parked, never delivered', async () => {
    const envelope = createEnvelope(disputeCreated, aDisputeEvent(newPublicId('biz')));
    const broken = { ...envelope, payload: { ...envelope.payload, dispute: { amount_centavos: 'lots' } } };
    await harness.client.publishEnvelope(broken as never, {});
    const parked = await waitForParkedMessages(
      `${harness.env.config.AMQP_PREFIX}webhook-dispatcher.events.parking`,
      'the parked event',
    );
    expect(parked).toEqual([expect.objectContaining({ messageId: envelope.id })]);
    expect(await harness.eventKept(envelope.payload.event_id)).toBe(false);
  });
});
