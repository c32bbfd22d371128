import { getWebhook, listWebhooks, newPublicId, rotateWebhookSecret, type Webhook } from '@gateway/contracts';
import { expectedPageCommand, harnessWithMerchantForTheseTests } from './support/harness';

describe('api gateway: GET /v1/webhook, /v1/webhook/{id}, POST /v1/webhook/{id}/rotate-secret', () => {
  const h = harnessWithMerchantForTheseTests('gw-webhook-reads', { merchant: 'Padaria Pão Quente' });

  const webhook = (): Webhook => ({
    webhook_id: newPublicId('wh'),
    business_id: h.merchant.business_id,
    url: 'https://loja.example/hooks',
    events: ['payment.confirmed'],
    status: 'active',
    created_at: '2026-11-24T10:00:00.000Z',
    updated_at: '2026-11-24T10:00:00.000Z',
  });
  const get = (path: string) => h.http.get(path).set('x-api-key', h.merchant.api_key);

  test('reads one webhook of the caller’s business as the dispatcher answers it', async () => {
    const stored = webhook();
    h.fakes.on(getWebhook, async () => stored);
    const response = await get(`/v1/webhook/${stored.webhook_id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(stored);
    expect(h.fakes.receivedOf(getWebhook).at(-1)).toEqual({
      business_id: h.merchant.business_id,
      webhook_id: stored.webhook_id,
    });
  });

  test('a rotation answers the new secret once, for the caller’s business', async () => {
    const webhookId = newPublicId('wh');
    h.fakes.on(rotateWebhookSecret, async () => ({
      secret: 'whsec_bmV3LXNlY3JldC1vZi0zMi1ieXRlcy0tLS0tLS0tLS0=',
    }));
    const response = await h.http
      .post(`/v1/webhook/${webhookId}/rotate-secret`)
      .set('x-api-key', h.merchant.api_key);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ secret: 'whsec_bmV3LXNlY3JldC1vZi0zMi1ieXRlcy0tLS0tLS0tLS0=' });
    expect(h.fakes.receivedOf(rotateWebhookSecret).at(-1)).toEqual({
      business_id: h.merchant.business_id,
      webhook_id: webhookId,
    });
  });

  test('lists a page of webhooks with the cursor it was given; a bad cursor or limit is INVALID_FIELDS', async () => {
    const page = { data: [webhook()], has_more: false };
    h.fakes.on(listWebhooks, async () => page);
    const startingAfter = newPublicId('wh');
    const response = await get(`/v1/webhook?limit=5&starting_after=${startingAfter}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(page);
    expect(h.fakes.receivedOf(listWebhooks).at(-1)).toEqual(
      expectedPageCommand(h.merchant, {}, { limit: 5, starting_after: startingAfter }),
    );
    for (const query of ['?limit=1000', '?starting_after=cust_abcdefghijklmnopqrstuvwx', '?limit=%00']) {
      const refused = await get(`/v1/webhook${query}`);
      expect({ status: refused.status, code: refused.body.error.code }).toEqual({
        status: 422,
        code: 'INVALID_FIELDS',
      });
    }
  });
});
