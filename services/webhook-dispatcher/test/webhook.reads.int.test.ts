import {
  deleteWebhook,
  getWebhook,
  listWebhooks,
  newPublicId,
  type ListWebhooks,
  type Webhook,
} from '@gateway/contracts';
import { Harness } from './support/harness';

describe('webhook.get.v1 and webhook.list.v1', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await Harness.create('webhook-reads');
    await harness.startDispatcher();
  });

  afterAll(async () => {
    await harness.close();
  });

  const register = async (businessId: string, count: number) => {
    const made: Array<Webhook & { secret: string }> = [];
    for (let i = 0; i < count; i += 1)
      made.push(
        await harness.createWebhook(businessId, harness.receiver.route(`/reads/${newPublicId('p')}`)),
      );
    return made;
  };
  const list = (query: ListWebhooks) => harness.request(listWebhooks, query);
  const withoutSecret = ({ secret: _secret, ...webhook }: Webhook & { secret: string }): Webhook => webhook;

  test('reads a webhook of the business without its secret; another business’s or a deleted one is NOT_FOUND', async () => {
    const businessId = newPublicId('biz');
    const [webhook, deleted] = await register(businessId, 2);
    await harness.request(deleteWebhook, { business_id: businessId, webhook_id: deleted!.webhook_id });

    const read = await harness.request(getWebhook, {
      business_id: businessId,
      webhook_id: webhook!.webhook_id,
    });
    expect(read).toEqual({ ok: true, result: withoutSecret(webhook!) });
    expect(JSON.stringify(read)).not.toContain(webhook!.secret);
    for (const query of [
      { business_id: newPublicId('biz'), webhook_id: webhook!.webhook_id },
      { business_id: businessId, webhook_id: deleted!.webhook_id },
    ]) {
      const reply = await harness.request(getWebhook, query);
      expect(reply).toEqual({ ok: false, error: expect.objectContaining({ code: 'NOT_FOUND' }) });
    }
  });

  test("lists the business's webhooks newest first, page after page, never a deleted one nor a secret", async () => {
    const businessId = newPublicId('biz');
    const made = await register(businessId, 4);
    await register(newPublicId('biz'), 1);
    await harness.request(deleteWebhook, { business_id: businessId, webhook_id: made[1]!.webhook_id });

    const first = await list({ business_id: businessId, limit: 2 });
    if (!first.ok) throw new Error(JSON.stringify(first.error));
    const second = await list({
      business_id: businessId,
      limit: 2,
      starting_after: first.result.data.at(-1)!.webhook_id,
    });
    if (!second.ok) throw new Error(JSON.stringify(second.error));

    expect(first.result.has_more).toBe(true);
    expect(second.result.has_more).toBe(false);
    expect([...first.result.data, ...second.result.data]).toEqual(
      [made[3]!, made[2]!, made[0]!].map(withoutSecret),
    );
    expect(JSON.stringify([first, second])).not.toMatch(/whsec_/);
  });

  test("another business's webhook as the cursor is INVALID_FIELDS", async () => {
    const [theirs] = await register(newPublicId('biz'), 1);
    const reply = await list({ business_id: newPublicId('biz'), starting_after: theirs!.webhook_id });
    expect(reply).toEqual({ ok: false, error: expect.objectContaining({ code: 'INVALID_FIELDS' }) });
  });
});
