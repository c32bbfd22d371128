import { createHmac } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { newPublicId, paymentCreated, rotateWebhookSecret } from '@gateway/contracts';
import { waitFor } from '@gateway/testkit';
import { answers } from './support/receiver';
import { Harness } from './support/harness';

describe('webhook.rotate-secret.v1', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await Harness.create('webhook-rotation');
    await harness.startDispatcher();
  });

  afterAll(async () => {
    await harness.close();
  });

  const rotate = (businessId: string, webhookId: string, messageId?: string) =>
    harness.request(rotateWebhookSecret, { business_id: businessId, webhook_id: webhookId }, { messageId });
  /** Delivers one payment.created to the webhook's endpoint and answers what arrived. */
  const deliverOne = async (businessId: string, path: string) => {
    const before = harness.receiver.hitsTo(path).length;
    await harness.publishPaymentEvent(paymentCreated, businessId);
    const hit = await waitFor(() => harness.receiver.hitsTo(path)[before], { what: 'a delivery' });
    const standard = {
      'webhook-id': String(hit.headers['webhook-id']),
      'webhook-timestamp': String(hit.headers['webhook-timestamp']),
      'webhook-signature': String(hit.headers['webhook-signature']),
    };
    const verifies = (secret: string) => {
      try {
        new StandardWebhook(secret).verify(hit.body, standard);
        return true;
      } catch {
        return false;
      }
    };
    return { hit, standard, verifies };
  };

  test('for the overlap both secrets verify every delivery; x-service-signature is the new one; then only the new', async () => {
    const businessId = newPublicId('biz');
    const path = `/rotation/${newPublicId('p')}`;
    const webhook = await harness.createWebhook(
      businessId,
      harness.receiver.route(path, answers.status(200)),
    );

    const rotated = await rotate(businessId, webhook.webhook_id);
    if (!rotated.ok) throw new Error(JSON.stringify(rotated.error));
    const newSecret = rotated.result.secret;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(webhook.secret);

    const during = await deliverOne(businessId, path);
    expect(during.standard['webhook-signature'].split(' ')).toHaveLength(2);
    expect({ old: during.verifies(webhook.secret), new: during.verifies(newSecret) }).toEqual({
      old: true,
      new: true,
    });
    expect(during.hit.headers['x-service-signature']).toBe(
      createHmac('sha256', newSecret).update(during.hit.body).digest('hex'),
    );

    // The overlap runs out (24 hours, moved to the past here).
    await harness.query(
      `UPDATE webhooks SET previous_secret_until = now() - interval '1 second' WHERE id = $1`,
      [webhook.webhook_id],
    );
    const after = await deliverOne(businessId, path);
    expect(after.standard['webhook-signature'].split(' ')).toHaveLength(1);
    expect({ old: after.verifies(webhook.secret), new: after.verifies(newSecret) }).toEqual({
      old: false,
      new: true,
    });
  });

  test('a retried rotation answers the same secret; another business’s webhook is NOT_FOUND', async () => {
    const businessId = newPublicId('biz');
    const webhook = await harness.createWebhook(
      businessId,
      harness.receiver.route(`/rotation/${newPublicId('p')}`),
    );
    const messageId = newPublicId('msg');

    const first = await rotate(businessId, webhook.webhook_id, messageId);
    const again = await rotate(businessId, webhook.webhook_id, messageId);
    expect(first.ok && again.ok && first.result.secret === again.result.secret).toBe(true);
    const [row] = await harness.query<{ previous: string | null }>(
      'SELECT previous_secret_sealed AS previous FROM webhooks WHERE id = $1',
      [webhook.webhook_id],
    );
    // Sealed, never the secret itself.
    expect(row!.previous).not.toContain(webhook.secret);
    const [inbox] = await harness.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM inbox WHERE result::text LIKE '%whsec_%'`,
    );
    expect(inbox!.n).toBe(0);

    const foreign = await rotate(newPublicId('biz'), webhook.webhook_id);
    expect(foreign).toEqual({ ok: false, error: expect.objectContaining({ code: 'NOT_FOUND' }) });
  });
});
