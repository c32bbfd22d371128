import { Operations } from './operations';
import { PagedList } from './pagination';
import { routes } from './routes';
import { Transport } from './transport';
import type { DeliveryPage, ListDeliveriesParams, RequestOptions, WebhookDelivery } from './types';

export interface GatewayOptions {
  /** The business's API key: `sk_test_...` (sandbox) or `sk_live_...`. */
  apiKey: string;
  /** The deployment's address; default the local stack, `http://localhost:3000`. */
  baseUrl?: string;
  /** Retries of a call after a lost connection, a timeout, 429 or 503. Default 2. */
  maxRetries?: number;
  /** Bound on each attempt. Default 30 s (a webhook test waits for your endpoint, up to 10 s). */
  timeoutMs?: number;
  /** The longest `Retry-After` (or backoff) waited for before retrying; a longer one is thrown. Default 60 s. */
  maxRetryDelayMs?: number;
  /** Another fetch (a proxy's, a test's); default the global one. */
  fetch?: typeof fetch;
}

const DEFAULT_BASE_URL = 'http://localhost:3000';

/**
 * The gateway's public API for a business. Each method is one route; POSTs carry an Idempotency-Key (yours, or one
 * generated per call) so their retries are safe; failures throw GatewayError with the contract's code.
 */
export class Gateway {
  readonly payments;
  readonly refunds;
  readonly customers;
  readonly checkouts;
  readonly webhooks;
  readonly events;
  /** Sandbox deployments only. */
  readonly sandbox;

  constructor(clientOptions: GatewayOptions) {
    if (!clientOptions.apiKey) throw new TypeError('Gateway needs an apiKey');
    const transport = new Transport({
      apiKey: clientOptions.apiKey,
      baseUrl: (clientOptions.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, ''),
      maxRetries: clientOptions.maxRetries ?? 2,
      timeoutMs: clientOptions.timeoutMs ?? 30_000,
      maxRetryDelayMs: clientOptions.maxRetryDelayMs ?? 60_000,
      fetch: clientOptions.fetch ?? globalThis.fetch,
    });

    const operation = new Operations(transport);

    this.payments = {
      create: operation.withBody('createPayment'),
      get: operation.plain('getPayment'),
      list: operation.list('listPayments', (payment) => payment.payment_id),
      update: operation.withBody('updatePayment'),
      cancel: operation.plain('cancelPayment'),
      receivedFunds: operation.list('listReceivedFunds', (funds) => funds.funds_id),
      /**
       * Records received funds as returned to the payer outside the gateway, so no refund returns them again.
       * Funds a refund returns (or returned) are refused with INVALID_STATUS.
       */
      returnReceivedFunds: operation.plain('returnReceivedFunds'),
    };

    this.refunds = {
      create: operation.withOptionalBody('createRefund'),
      get: operation.plain('getRefund'),
      /** A payment's refunds. */
      list: operation.list('listRefunds', (refund) => refund.refund_id),
    };

    this.customers = {
      create: operation.withBody('createCustomer'),
      get: operation.plain('getCustomer'),
      list: operation.list('listCustomers', (customer) => customer.customer_id),
    };

    this.checkouts = {
      create: operation.withBody('createCheckout'),
      get: operation.plain('getCheckout'),
      list: operation.list('listCheckouts', (checkout) => checkout.checkout_id),
      sessions: operation.list('listCheckoutSessions', (session) => session.session_id),
    };

    this.webhooks = {
      /** The answer carries the signing secret, shown this once. */
      create: operation.withBody('createWebhook'),
      get: operation.plain('getWebhook'),
      list: operation.list('listWebhooks', (webhook) => webhook.webhook_id),
      delete: operation.plain('deleteWebhook', { goneAnswer: { deleted: true } }),
      /** A new secret, shown once; for 24 h deliveries are signed with both. */
      rotateSecret: operation.plain('rotateWebhookSecret'),
      /** Delivery history, newest first, with every attempt. */
      deliveries: (webhookId: string, params: ListDeliveriesParams = {}, options?: RequestOptions) =>
        new PagedList<DeliveryPage, WebhookDelivery>(async (cursor) => {
          const page = await transport.send<DeliveryPage>({
            route: routes.listWebhookDeliveries,
            params: { webhook_id: webhookId },
            query: { ...params, ...(cursor === undefined ? {} : { cursor }) },
            options,
          });
          return { page, items: page.data, next: page.next_cursor ?? undefined };
        }),
      /** Redelivers now. */
      retryDelivery: operation.plain('retryWebhookDelivery'),
      /** Sends a signed `webhook.test` event now and answers how your endpoint replied. */
      test: operation.plain('sendTestWebhook'),
    };

    this.events = {
      /** The business's events of the last 30 days. */
      list: operation.list('listEvents', (event) => event.id),
      get: operation.plain('getEvent'),
    };

    this.sandbox = {
      /** Drives a sandbox payment through its rail: the PSP simulator pays, the local chain transfers, or the clock. */
      simulate: operation.withBody('simulatePayment'),
    };
  }
}
