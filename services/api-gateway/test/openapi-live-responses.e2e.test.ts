import Redis from 'ioredis';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { dateOfDay, saoPauloDay, webhookEventNames } from '@gateway/contracts';
import type { Broker } from '@gateway/messaging';
import {
  startStackWithWebhookReceiver,
  testLogger,
  waitFor,
  type RunningStack,
  type WebhookReceiver,
} from '@gateway/testkit';
import type { ApiGatewayConfig } from '../src/config';
import { createApp } from '../src/http/app';
import type { OpenApiDocument } from '../src/http/openapi';
import {
  concretePath,
  documentedRoutes,
  OpenApiResponseValidator,
  servedRoutes,
  validateOpenApiDocument,
  type ResponseCheck,
} from './support/openapi';
import { EventFeedHealth } from '../src/domain/event-feed-health';
import { ChangeFeedWatermark } from '../src/domain/change-feed-watermark';

type Json = Record<string, any>;
type Credentials = 'merchant' | 'other-merchant' | 'operator' | 'none';

interface Checked extends ResponseCheck {
  status: number;
  at: string;
}

/** What the hosted checkout lets one buyer IP do per minute here: low enough to reach its 429 quickly. */
const CHECKOUT_LIMIT = 10;

/** The app of an environment, built as the gateway builds it (nothing connected: only its routes are read). */
function appOf(environment: ApiGatewayConfig['APP_ENV']) {
  const redis = new Redis({ lazyConnect: true });
  const app = createApp({
    config: {
      APP_ENV: environment,
      LOG_LEVEL: 'silent',
      PORT: 0,
      DATABASE_URL: 'postgres://unused',
      AMQP_URL: 'amqp://unused',
      AMQP_PREFIX: 'unused',
      REDIS_URL: 'redis://unused',
      REDIS_PREFIX: 'unused:',
      ADMIN_TOKEN: 'an-operator-token-of-at-least-32-characters',
      RPC_TIMEOUT_MS: 1000,
      RATE_LIMIT_PER_MINUTE: 60,
      DASHBOARD_RATE_LIMIT_PER_MINUTE: 600,
      CHECKOUT_RATE_LIMIT_PER_MINUTE: 120,
      ADMIN_RATE_LIMIT_PER_MINUTE: 30,
      IDEMPOTENCY_RESPONSE_KEY: Buffer.alloc(32, 7).toString('base64'),
      IDEMPOTENCY_PURGE_INTERVAL_MS: 60_000,
      PUBLIC_BASE_URL: 'https://pay.example.com',
      TRUST_PROXY: false,
      PAYMENT_COPY_MAX_AGE_MS: 30_000,
      PAYMENT_COPY_CATCH_UP_INTERVAL_MS: 1000,
    },
    dataSource: {} as DataSource,
    broker: {} as Broker,
    redis,
    logger: testLogger('openapi'),
    paymentCopies: {
      dataSource: {} as DataSource,
      maxAgeMs: 30_000,
      feed: new EventFeedHealth(1000, 30_000),
      changeFeed: new ChangeFeedWatermark(),
      logger: testLogger('openapi'),
    },
  });
  redis.disconnect();
  return app;
}

/**
 * The app serves exactly what its document lists: the routes express has, method and path, are the document's, in
 * production (no sandbox) as in sandbox, and the document it serves is valid OpenAPI 3.1. Both come from the same
 * table; this fails when a route is mounted or served beside it.
 */
describe('the gateway serves exactly the routes its OpenAPI document lists', () => {
  test.each(['sandbox', 'production'] as const)('%s', async (environment) => {
    const app = appOf(environment);
    const document = (await request(app).get('/openapi.json')).body as OpenApiDocument;
    const served = servedRoutes(app);
    expect(served).toContain('POST /v1/payments');
    expect(served.includes('POST /v1/sandbox/payments/{payment_id}/simulate')).toBe(
      environment === 'sandbox',
    );
    expect(documentedRoutes(document)).toEqual(served);
    expect(validateOpenApiDocument(document)).toEqual({ valid: true, version: '3.1', errors: null });
  });
});

/**
 * The whole stack, driven through every documented route as a merchant, an operator and a buyer would, with every
 * answer (successes and errors, status, headers, body) and every webhook delivery validated against the document
 * the gateway serves at /openapi.json. A field, status, header or event the document does not state fails here.
 */
/**
 * Operations the stack cannot answer successfully, each answered here all the same (its refusal checked): a dispute's
 * defence needs a PSP that takes one (Efí's infractions), and the stack's PSP is the baseline's. Its success is checked
 * through the whole stack with a business whose own PSP account is at Efí (services/ledger/test/disputes-stack.e2e.test.ts).
 */
const SUCCEEDS_ELSEWHERE = new Set(['POST /v1/disputes/{dispute_id}/defence']);

describe('the whole stack answers as its OpenAPI document says', () => {
  let stack: RunningStack;
  let receiver: WebhookReceiver;
  let stopAll: () => Promise<void>;
  let receiverUrl: string;
  let document: OpenApiDocument;
  let validator: OpenApiResponseValidator;
  const checked: Checked[] = [];
  const keys: Record<'merchant' | 'other-merchant', string> = { merchant: '', 'other-merchant': '' };

  const headersOf = (credentials: Credentials): Record<string, string> => {
    if (credentials === 'operator') return { authorization: `Bearer ${stack.adminToken}` };
    if (credentials === 'none') return {};
    return { 'x-api-key': keys[credentials] };
  };

  /** One request; its answer is validated against the document and recorded. */
  const call = async (
    method: string,
    path: string,
    options: { as?: Credentials; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
  ) => {
    const { as = 'merchant', body, raw, headers = {} } = options;
    const payload = raw ?? (body === undefined ? undefined : JSON.stringify(body));
    const response = await fetch(`${stack.gatewayUrl}${path}`, {
      method,
      headers: {
        ...headersOf(as),
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: payload,
    });
    const text = await response.text();
    const check = validator.check(method, new URL(path, stack.gatewayUrl).pathname, {
      status: response.status,
      headers: response.headers,
      body: text,
    });
    checked.push({ ...check, status: response.status, at: `${method} ${path} -> ${response.status}` });
    const isJson = (response.headers.get('content-type') ?? '').startsWith('application/json');
    return {
      status: response.status,
      headers: response.headers,
      body: (isJson ? JSON.parse(text) : {}) as Json,
    };
  };

  /** The answer's body, once its status is the expected one (the body shows in the failure otherwise). */
  const expectStatus = async (expected: number, answer: Promise<{ status: number; body: Json }>) => {
    const { status, body } = await answer;
    expect({ status, body }).toEqual({ status: expected, body: expect.anything() });
    return body;
  };

  const failures = (from = 0) =>
    checked.slice(from).flatMap((check) => check.errors.map((error) => `${check.at}: ${error}`));

  beforeAll(async () => {
    ({ stack, receiver, stopAll } = await startStackWithWebhookReceiver({
      ADMIN_RATE_LIMIT_PER_MINUTE: '100000',
      CHECKOUT_RATE_LIMIT_PER_MINUTE: String(CHECKOUT_LIMIT),
      // A deployment without default fee rules: a business the operator has not priced answers NO_FEE_RULE.
      DEFAULT_FEE_PIX: '',
      DEFAULT_FEE_CRYPTO: '',
    }));
    receiverUrl = receiver.url('/hooks');
    document = (await (await fetch(`${stack.gatewayUrl}/openapi.json`)).json()) as OpenApiDocument;
    validator = new OpenApiResponseValidator(document);
  }, 150_000);

  afterAll(() => stopAll?.());

  // Ids the journey creates, for the error probes and the webhook checks after it.
  const made: Record<string, string> = {};

  test("every route answers its success as documented, along an operator's, a merchant's and a buyer's journey", async () => {
    const business = await expectStatus(
      201,
      call('POST', '/admin/v1/businesses', { as: 'operator', body: { name: 'Loja Documentada' } }),
    );
    keys.merchant = business.api_key;
    made.business = business.business_id;
    await expectStatus(200, call('GET', `/admin/v1/businesses/${made.business}`, { as: 'operator' }));
    await expectStatus(200, call('GET', '/admin/v1/businesses?limit=2', { as: 'operator' }));
    const issued = await expectStatus(
      201,
      call('POST', `/admin/v1/businesses/${made.business}/api-keys`, { as: 'operator' }),
    );
    const rolled = await expectStatus(
      201,
      call('POST', `/admin/v1/api-keys/${issued.key_prefix}/roll`, {
        as: 'operator',
        body: { expires_in_seconds: 0 },
      }),
    );
    await expectStatus(
      200,
      call('PUT', `/admin/v1/api-keys/${rolled.key_prefix}/purpose`, {
        as: 'operator',
        body: { purpose: 'dashboard' },
      }),
    );
    await expectStatus(200, call('DELETE', `/admin/v1/api-keys/${rolled.key_prefix}`, { as: 'operator' }));
    for (const method of ['pix', 'crypto']) {
      await expectStatus(
        200,
        call('PUT', `/admin/v1/businesses/${made.business}/fee-rules/${method}`, {
          as: 'operator',
          body: { percent_bps: 150, fixed_centavos: 10 },
        }),
      );
    }
    const product = await expectStatus(
      201,
      call('POST', `/admin/v1/businesses/${made.business}/products`, {
        as: 'operator',
        body: { name: 'Camiseta', price: 7990, description: 'Algodão orgânico' },
      }),
    );
    await expectStatus(200, call('GET', '/admin/v1/parked', { as: 'operator' }));
    await expectStatus(200, call('POST', '/admin/v1/parked/redrive', { as: 'operator', body: {} }));
    const reconciliation = await expectStatus(
      201,
      call('POST', '/admin/v1/reconciliations', { as: 'operator', body: {} }),
    );
    await expectStatus(
      200,
      call('GET', `/admin/v1/reconciliations/${reconciliation.id}`, { as: 'operator' }),
    );
    await expectStatus(200, call('GET', '/admin/v1/reconciliations?limit=1', { as: 'operator' }));
    const other = await expectStatus(
      201,
      call('POST', '/admin/v1/businesses', { as: 'operator', body: { name: 'Outra Loja' } }),
    );
    keys['other-merchant'] = other.api_key;
    await expectStatus(
      201,
      call('POST', '/admin/v1/adjustments', {
        as: 'operator',
        // Between two platform accounts that no rail mirrors: no business's books and no reconciliation move.
        body: {
          amount: 100,
          debit_account: 'platform_adjustments',
          credit_account: 'fee_revenue',
          reason: 'Reclassificação de receita',
        },
      }),
    );
    await expectStatus(200, call('GET', '/admin/v1/adjustments?limit=1', { as: 'operator' }));

    const webhook = await expectStatus(
      201,
      call('POST', '/v1/webhook', { body: { url: receiverUrl, events: [...webhookEventNames] } }),
    );
    made.webhook = webhook.webhook_id;
    await expectStatus(200, call('GET', '/v1/webhook?limit=5'));
    await expectStatus(200, call('GET', `/v1/webhook/${made.webhook}`));
    await expectStatus(200, call('POST', `/v1/webhook/${made.webhook}/rotate-secret`));

    const customer = await expectStatus(
      201,
      call('POST', '/v1/customers', {
        body: {
          email: 'maria@example.com',
          phone_number: '(11) 91234-5678',
          document_number: '529.982.247-25',
          metadata: '{"vip":true}',
        },
      }),
    );
    await expectStatus(200, call('GET', '/v1/customers?limit=5'));
    await expectStatus(200, call('GET', `/v1/customers/${customer.customer_id}`));

    const pixBody = {
      payment_method: 'pix',
      amount: 12345,
      currency: 'brl',
      customer_id: customer.customer_id,
    };
    const pix = await expectStatus(
      201,
      call('POST', '/v1/payments', { body: pixBody, headers: { 'idempotency-key': 'order-1' } }),
    );
    made.pix = pix.payment_id;
    const replay = await call('POST', '/v1/payments', {
      body: pixBody,
      headers: { 'idempotency-key': 'order-1' },
    });
    expect({ status: replay.status, replayed: replay.headers.get('idempotent-replayed') }).toEqual({
      status: 201,
      replayed: 'true',
    });
    const crypto = await expectStatus(
      201,
      call('POST', '/v1/payments', {
        body: { payment_method: 'crypto', amount: 10000, crypto: { currency: 'usdc', network: 'solana' } },
      }),
    );
    made.crypto = crypto.payment_id;
    await expectStatus(200, call('GET', '/v1/payments?limit=5&method=pix'));
    await expectStatus(200, call('GET', `/v1/payments/${made.pix}`));
    await expectStatus(200, call('PATCH', `/v1/payments/${made.pix}`, { body: { amount: 15000 } }));
    await expectStatus(200, call('PATCH', `/v1/payments/${made.crypto}`, { body: { amount: 11000 } }));
    await expectStatus(200, call('PATCH', `/v1/payments/${made.crypto}`, { body: { metadata: '{"n":1}' } }));
    await expectStatus(200, call('POST', `/v1/payments/${made.crypto}/cancel`));
    await expectStatus(200, call('GET', `/v1/payments/${made.crypto}/received-funds`));
    await expectStatus(
      202,
      call('POST', `/v1/sandbox/payments/${made.pix}/simulate`, { body: { outcome: 'paid' } }),
    );
    await waitFor(
      async () => (await call('GET', `/v1/payments/${made.pix}`)).body.status === 'paid' || undefined,
      { timeoutMs: 30_000, intervalMs: 250, what: 'the PIX payment to be paid' },
    );
    const refund = await expectStatus(
      201,
      call('POST', `/v1/payments/${made.pix}/refunds`, {
        body: { amount: 5000, reason: 'produto devolvido' },
      }),
    );
    await expectStatus(200, call('GET', `/v1/payments/${made.pix}/refunds`));
    await expectStatus(200, call('GET', `/v1/refunds/${refund.refund_id}`));
    // A MED on the paid PIX payment (the PSP simulator's callback): the dispute, its list and its read.
    await expectStatus(
      202,
      call('POST', `/v1/sandbox/payments/${made.pix}/simulate`, {
        body: { outcome: 'disputed', amount: 1000 },
      }),
    );
    const dispute = await waitFor(
      async () => ((await call('GET', '/v1/disputes?limit=5')).body.data as Json[] | undefined)?.[0],
      { timeoutMs: 30_000, intervalMs: 250, what: 'the dispute of the PIX payment' },
    );
    await expectStatus(200, call('GET', `/v1/disputes/${dispute.dispute_id}`));
    // Its defence: the stack's PSP (API Pix alone) takes none, so it is refused, as documented.
    await expectStatus(
      422,
      call('POST', `/v1/disputes/${dispute.dispute_id}/defence`, { body: { text: 'Pedido entregue.' } }),
    );
    // A subscription (Pix Automático, its amount varying) of a customer with a name and a CPF: made, read, listed, its
    // first cycle's amount set, driven in the sandbox (authorized, its clock moved past cycle 1's send day) and cancelled.
    const inDays = (days: number) => dateOfDay(saoPauloDay(new Date()) + days);
    const subscriber = await expectStatus(
      201,
      call('POST', '/v1/customers', { body: { name: 'Maria Souza', document_number: '529.982.247-25' } }),
    );
    const subscription = await expectStatus(
      201,
      call('POST', '/v1/subscriptions', {
        body: {
          customer_id: subscriber.customer_id,
          minimum_amount: 9990,
          interval: 'monthly',
          start_date: inDays(10),
          authorization: { journey: 'qr' },
        },
      }),
    );
    await expectStatus(200, call('GET', '/v1/subscriptions?limit=5'));
    await expectStatus(200, call('GET', `/v1/subscriptions/${subscription.subscription_id}`));
    await expectStatus(
      200,
      call('PATCH', `/v1/subscriptions/${subscription.subscription_id}`, {
        body: { next_cycle_amount: 12_000 },
      }),
    );
    await expectStatus(
      202,
      call('POST', `/v1/sandbox/subscriptions/${subscription.subscription_id}/simulate`, {
        body: { outcome: 'authorize' },
      }),
    );
    await waitFor(
      async () =>
        (await call('GET', `/v1/subscriptions/${subscription.subscription_id}`)).body.status === 'active' ||
        undefined,
      { timeoutMs: 30_000, intervalMs: 250, what: 'the subscription authorized' },
    );
    // Answered at once (202); the clock moves in the background.
    await expectStatus(
      202,
      call('POST', `/v1/sandbox/subscriptions/${subscription.subscription_id}/advance`, {
        body: { to: inDays(4) },
      }),
    );
    await waitFor(
      async () =>
        (await call('GET', `/v1/subscriptions/${subscription.subscription_id}`)).body.current_date ===
          inDays(4) || undefined,
      { timeoutMs: 30_000, intervalMs: 250, what: 'the subscription clock moved' },
    );
    await expectStatus(200, call('POST', `/v1/subscriptions/${subscription.subscription_id}/cancel`));
    // The books (the ledger service): the paid payment's balance transaction, the balance, this month's statement; the
    // other business sees none of it.
    const posted = await waitFor(
      async () => {
        const page = await call('GET', '/v1/balance_transactions?limit=5&type=payment');
        return (page.body.data as Json[] | undefined)?.find((item) => item.source_id === made.pix);
      },
      { timeoutMs: 30_000, intervalMs: 250, what: "the PIX payment's balance transaction" },
    );
    await expectStatus(200, call('GET', `/v1/balance_transactions?limit=5&starting_after=${posted.id}`));
    await expectStatus(200, call('GET', '/v1/balance'));
    // A payout of part of the paid money, to the account the operator registers.
    await expectStatus(
      200,
      call('PUT', `/admin/v1/businesses/${made.business}/payout-account`, {
        as: 'operator',
        body: { pix_key: 'financeiro@loja.com.br', pix_key_type: 'email', holder_document: '52998224725' },
      }),
    );
    // The business's own PSP account: set, read without its secret, and removed again (no charge is open there).
    const pspAccountPath = `/admin/v1/businesses/${made.business}/psp-account`;
    await expectStatus(
      200,
      call('PUT', pspAccountPath, {
        as: 'operator',
        body: {
          profile: 'bcb',
          base_url: 'https://pix.example-bank.test/v2',
          oauth_token_url: 'https://pix.example-bank.test/oauth/token',
          client_id: 'client-of-the-business',
          client_secret: 'secret-of-the-business',
          pix_key: '12345678000195',
        },
      }),
    );
    await expectStatus(200, call('GET', pspAccountPath, { as: 'operator' }));
    await expectStatus(200, call('DELETE', pspAccountPath, { as: 'operator' }));
    const payout = await expectStatus(201, call('POST', '/v1/payouts', { body: { amount: 1000 } }));
    await expectStatus(200, call('GET', `/v1/payouts/${payout.payout_id}`));
    await expectStatus(200, call('GET', '/v1/payouts?limit=5'));
    const statement = await call('GET', `/v1/statements/${posted.created_at.slice(0, 7)}`);
    expect({ status: statement.status, type: statement.headers.get('content-type') }).toEqual({
      status: 200,
      type: 'text/csv; charset=utf-8',
    });
    const othersBooks = await expectStatus(
      200,
      call('GET', '/v1/balance_transactions?limit=100', { as: 'other-merchant' }),
    );
    expect(othersBooks.data).toEqual([]);
    // An overpaid crypto payment keeps its excess aside, which the merchant may record as returned by hand.
    const overpaid = await expectStatus(
      201,
      call('POST', '/v1/payments', {
        body: { payment_method: 'crypto', amount: 10000, crypto: { currency: 'usdc', network: 'solana' } },
      }),
    );
    await expectStatus(
      202,
      call('POST', `/v1/sandbox/payments/${overpaid.payment_id}/simulate`, {
        body: { outcome: 'paid', amount: 12500 },
      }),
    );
    const excess = await waitFor(
      async () => (await call('GET', `/v1/payments/${overpaid.payment_id}/received-funds`)).body.data?.[0],
      { timeoutMs: 60_000, intervalMs: 250, what: 'the excess of the overpaid crypto payment' },
    );
    await expectStatus(
      200,
      call('POST', `/v1/payments/${overpaid.payment_id}/received-funds/${excess.funds_id}/return`),
    );
    const returnedByHand = await expectStatus(
      200,
      call('GET', '/admin/v1/received-funds?kind=excess&status=returned&limit=100', { as: 'operator' }),
    );
    expect(returnedByHand.data).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          funds_id: excess.funds_id,
          payment_id: overpaid.payment_id,
          business_id: made.business,
          returned_by: 'manual',
        }),
      ]),
    );
    // Money kept aside that the operator assigns to the business instead (the books credit its balance); assigning it
    // again is refused.
    const overpaidPix = await expectStatus(
      201,
      call('POST', '/v1/payments', { body: { payment_method: 'pix', amount: 5000 } }),
    );
    await expectStatus(
      202,
      call('POST', `/v1/sandbox/payments/${overpaidPix.payment_id}/simulate`, {
        body: { outcome: 'paid', amount: 5500 },
      }),
    );
    const pixExcess = await waitFor(
      async () => (await call('GET', `/v1/payments/${overpaidPix.payment_id}/received-funds`)).body.data?.[0],
      { timeoutMs: 60_000, intervalMs: 250, what: 'the excess of the overpaid PIX payment' },
    );
    const assigned = await expectStatus(
      200,
      call('POST', `/admin/v1/received-funds/${pixExcess.funds_id}/assign`, { as: 'operator', body: {} }),
    );
    expect(assigned).toMatchObject({ status: 'assigned', assigned_payment_id: overpaidPix.payment_id });
    await expectStatus(
      422,
      call('POST', `/admin/v1/received-funds/${pixExcess.funds_id}/assign`, { as: 'operator', body: {} }),
    );
    // Or sends it back to the payer through the rail (a devolução of the Pix): returning at once; assigned money is
    // never sent back.
    const overpaidAgain = await expectStatus(
      201,
      call('POST', '/v1/payments', { body: { payment_method: 'pix', amount: 5000 } }),
    );
    await expectStatus(
      202,
      call('POST', `/v1/sandbox/payments/${overpaidAgain.payment_id}/simulate`, {
        body: { outcome: 'paid', amount: 5700 },
      }),
    );
    const excessAgain = await waitFor(
      async () =>
        (await call('GET', `/v1/payments/${overpaidAgain.payment_id}/received-funds`)).body.data?.[0],
      { timeoutMs: 60_000, intervalMs: 250, what: 'the excess of the second overpaid PIX payment' },
    );
    const sentBack = await expectStatus(
      200,
      call('POST', `/admin/v1/received-funds/${excessAgain.funds_id}/return`, { as: 'operator', body: {} }),
    );
    expect(sentBack).toMatchObject({ status: 'returning', returned_by: 'operator' });
    await expectStatus(
      422,
      call('POST', `/admin/v1/received-funds/${pixExcess.funds_id}/return`, { as: 'operator', body: {} }),
    );

    const checkout = await expectStatus(
      201,
      call('POST', '/v1/checkouts', {
        body: {
          product_id: product.product_id,
          return_url: 'https://loja.example/obrigado',
          cancel_url: 'https://loja.example/carrinho',
          title: 'Camiseta azul',
        },
      }),
    );
    made.slug = checkout.slug;
    await expectStatus(200, call('GET', '/c/assets/checkout.css', { as: 'none' }));
    await expectStatus(200, call('GET', `/c/${made.slug}`, { as: 'none' }));
    const session = await expectStatus(
      201,
      call('POST', `/c/${made.slug}/sessions`, { as: 'none', body: { method: 'pix' } }),
    );
    await expectStatus(200, call('GET', `/c/${made.slug}/sessions/${session.session_id}`, { as: 'none' }));
    // The buyer goes back to the method choice: the attempt is cancelled first.
    await expectStatus(
      200,
      call('POST', `/c/${made.slug}/sessions/${session.session_id}/cancel`, { as: 'none' }),
    );
    await expectStatus(200, call('GET', '/v1/checkouts?limit=5'));
    await expectStatus(200, call('GET', `/v1/checkouts/${checkout.checkout_id}`));
    await expectStatus(200, call('GET', `/v1/checkouts/${checkout.checkout_id}/sessions`));
    // The merchant's own products, and a checkout changed: taken down, then put back.
    const ownProduct = await expectStatus(
      201,
      call('POST', '/v1/products', { body: { name: 'Caneca', price: 3500, description: 'Branca' } }),
    );
    await expectStatus(200, call('GET', '/v1/products?limit=5'));
    await expectStatus(
      200,
      call('PATCH', `/v1/products/${ownProduct.product_id}`, { body: { price: 3990 } }),
    );
    await expectStatus(
      200,
      call('PATCH', `/v1/checkouts/${checkout.checkout_id}`, { body: { status: 'inactive' } }),
    );
    await expectStatus(
      200,
      call('PATCH', `/v1/checkouts/${checkout.checkout_id}`, {
        body: { status: 'active', title: 'Camiseta' },
      }),
    );

    await expectStatus(200, call('POST', `/v1/webhook/${made.webhook}/test`));
    const delivered = await waitFor(
      async () => {
        const page = await call('GET', `/v1/webhook/${made.webhook}/deliveries?limit=5`);
        return (page.body.data as Json[]).find((delivery) => delivery.attempts.length > 0);
      },
      { timeoutMs: 30_000, intervalMs: 250, what: 'a delivery with an attempt' },
    );
    await expectStatus(
      200,
      call('POST', `/v1/webhook/${made.webhook}/deliveries/${delivered.delivery_id}/retry`),
    );
    const event = await waitFor(
      async () => ((await call('GET', '/v1/events?type=payment.confirmed')).body.data as Json[])[0],
      { timeoutMs: 30_000, intervalMs: 250, what: 'the payment.confirmed event' },
    );
    await expectStatus(200, call('GET', `/v1/events/${event.id}`));
    const doomed = await expectStatus(
      201,
      call('POST', '/v1/webhook', { body: { url: receiverUrl, events: ['payment.failed'] } }),
    );
    await expectStatus(200, call('DELETE', `/v1/webhook/${doomed.webhook_id}`));

    for (const path of ['/healthz', '/readyz', '/metrics', '/openapi.json', '/docs']) {
      await expectStatus(200, call('GET', path, { as: 'none' }));
    }
    for (const asset of ['swagger-ui.css', 'swagger-ui-bundle.js', 'api-reference.js', 'favicon-32x32.png']) {
      await expectStatus(200, call('GET', `/docs/assets/${asset}`, { as: 'none' }));
    }
    expect(failures()).toEqual([]);
  }, 180_000);

  test('every route answers its errors as documented', async () => {
    const from = checked.length;
    // Each route without its credentials, and with ids of the right shape that name nothing.
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const url = concretePath(document, path, method);
        const body = ['post', 'put', 'patch'].includes(method) ? {} : undefined;
        if ((operation.security as Json[]).length > 0) {
          await expectStatus(401, call(method.toUpperCase(), url, { as: 'none', body }));
        }
        // Every well-formed month has a statement (empty or not): no month of the right shape names nothing.
        const named = url !== path && !url.startsWith('/v1/statements/');
        if (named && !url.startsWith('/c/') && !url.startsWith('/docs/')) {
          const asOperator = path.startsWith('/admin/');
          const answer = await call(method.toUpperCase(), url, {
            as: asOperator ? 'operator' : 'merchant',
            body,
          });
          expect({
            at: `${method} ${url}`,
            clientError: answer.status >= 400 && answer.status < 500,
          }).toEqual({
            at: `${method} ${url}`,
            clientError: true,
          });
        }
      }
    }
    const errorOf = async (status: number, answer: ReturnType<typeof call>) =>
      (await expectStatus(status, answer)).error.code as string;
    const codes = [
      await errorOf(422, call('POST', '/v1/payments', { body: {} })),
      await errorOf(422, call('POST', '/v1/payments', { body: { payment_method: 'card', amount: 500 } })),
      await errorOf(422, call('POST', '/v1/payments', { body: { payment_method: 'pix', amount: 5 } })),
      await errorOf(
        422,
        call('POST', '/v1/webhook', { body: { url: 'http://x.example', events: ['nope'] } }),
      ),
      await errorOf(400, call('POST', '/v1/customers', { raw: '{"email":' })),
      await errorOf(413, call('POST', '/v1/customers', { body: { metadata: 'x'.repeat(70_000) } })),
      await errorOf(
        409,
        call('POST', '/v1/payments', {
          body: { payment_method: 'pix', amount: 999 },
          headers: { 'idempotency-key': 'order-1' },
        }),
      ),
      await errorOf(422, call('POST', `/v1/payments/${made.pix}/cancel`)),
      await errorOf(
        422,
        call('POST', '/v1/payments', { as: 'other-merchant', body: { payment_method: 'pix', amount: 500 } }),
      ),
      await errorOf(403, call('DELETE', `/v1/webhook/${made.webhook}`, { as: 'other-merchant' })),
      await errorOf(404, call('GET', `/v1/payments/${made.pix}`, { as: 'other-merchant' })),
      await errorOf(
        422,
        call('PUT', `/admin/v1/businesses/${made.business}/fee-rules/card`, {
          as: 'operator',
          body: { percent_bps: 1, fixed_centavos: 0 },
        }),
      ),
      await errorOf(404, call('GET', '/docs/assets/nothing.js', { as: 'none' })),
      await errorOf(422, call('GET', '/v1/statements/2026-13')),
      await errorOf(
        404,
        call('POST', `/c/${made.slug}-gone/sessions`, { as: 'none', body: { method: 'pix' } }),
      ),
    ];
    expect(codes).toEqual([
      'MISSING_FIELDS',
      'UNSUPPORTED_PAYMENT_METHOD',
      'INVALID_AMOUNT',
      'INVALID_FIELDS',
      'INVALID_JSON',
      'PAYLOAD_TOO_LARGE',
      'IDEMPOTENCY_CONFLICT',
      'INVALID_STATUS',
      'NO_FEE_RULE',
      'FORBIDDEN',
      'NOT_FOUND',
      'UNSUPPORTED_PAYMENT_METHOD',
      'NOT_FOUND',
      'INVALID_FIELDS',
      'NOT_FOUND',
    ]);
    expect((await call('GET', `/c/${made.slug}-gone`, { as: 'none' })).status).toBe(404);
    // The buyer's IP runs out of its hosted checkout allowance: the 429, its headers and body as documented.
    const limited = await waitFor(
      async () => {
        const answer = await call('GET', `/c/${made.slug}`, { as: 'none' });
        return answer.status === 429 ? answer : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 0, what: 'the hosted checkout rate limit' },
    );
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    expect(failures(from)).toEqual([]);
  }, 120_000);

  test('every webhook delivery carries the signature headers and the body the document states for its event', async () => {
    const expected = [
      'payment.created',
      'payment.confirmed',
      'payment.cancelled',
      'refund.succeeded',
      'dispute.created',
      'webhook.test',
    ];
    const types = () =>
      new Set(receiver.deliveries.map((delivery) => JSON.parse(delivery.body).type as string));
    await waitFor(async () => expected.every((type) => types().has(type)) || undefined, {
      timeoutMs: 60_000,
      intervalMs: 250,
      what: `deliveries of ${expected.join(', ')}`,
    });
    const problems = receiver.deliveries.flatMap(({ headers, body }) => {
      const check = validator.checkWebhook(headers, body);
      return check.errors.map((error) => `${check.operation}: ${error}`);
    });
    expect(problems).toEqual([]);
  }, 90_000);

  test('every documented operation was answered successfully and checked', () => {
    const succeeded = new Set(checked.filter((check) => check.status < 300).map((check) => check.operation));
    const documented = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(
      documented.filter((operation) => !succeeded.has(operation) && !SUCCEEDS_ELSEWHERE.has(operation)),
    ).toEqual([]);
    expect(new Set(checked.map((check) => check.status))).toEqual(
      new Set([200, 201, 202, 400, 401, 403, 404, 409, 413, 422, 429]),
    );
  });
});
