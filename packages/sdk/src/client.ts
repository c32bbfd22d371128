import { PagedList } from './pagination';
import { routes } from './routes';
import { Transport, type Query } from './transport';
import type {
  Checkout,
  CheckoutSession,
  CheckoutWithSessions,
  CreateCheckoutParams,
  CreateCustomerParams,
  CreatePaymentParams,
  CreateRefundParams,
  CreateWebhookParams,
  Customer,
  DeliveryPage,
  Event,
  ListDeliveriesParams,
  ListEventsParams,
  ListPaymentsParams,
  Page,
  PageParams,
  Payment,
  PaymentDetails,
  PaymentCreated,
  PaymentUpdated,
  ReceivedFunds,
  Refund,
  RequestOptions,
  SimulateParams,
  UpdatePaymentParams,
  Webhook,
  WebhookDelivery,
  WebhookTestResult,
  WebhookWithSecret,
} from './types';

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

/** A list of one of the common pages, by the id its items are paged by. */
function pagedList<T>(
  send: (query: Query) => Promise<Page<T>>,
  params: PageParams & Query,
  idOf: (item: T) => string,
): PagedList<Page<T>, T> {
  return new PagedList(async (cursor) => {
    const page = await send(cursor === undefined ? params : { ...params, starting_after: cursor });
    const last = page.data.at(-1);
    return { page, items: page.data, next: page.has_more && last ? idOf(last) : undefined };
  });
}

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

    this.payments = {
      create: (params: CreatePaymentParams, options?: RequestOptions) =>
        transport.send<PaymentCreated>({ route: routes.createPayment, body: params, options }),
      get: (paymentId: string, options?: RequestOptions) =>
        transport.send<PaymentDetails>({
          route: routes.getPayment,
          params: { payment_id: paymentId },
          options,
        }),
      list: (params: ListPaymentsParams = {}, options?: RequestOptions) =>
        pagedList(
          (query) => transport.send<Page<Payment>>({ route: routes.listPayments, query, options }),
          { ...params },
          (payment) => payment.payment_id,
        ),
      update: (paymentId: string, params: UpdatePaymentParams, options?: RequestOptions) =>
        transport.send<PaymentUpdated>({
          route: routes.updatePayment,
          params: { payment_id: paymentId },
          body: params,
          options,
        }),
      cancel: (paymentId: string, options?: RequestOptions) =>
        transport.send<Payment>({ route: routes.cancelPayment, params: { payment_id: paymentId }, options }),
      receivedFunds: (paymentId: string, params: PageParams = {}, options?: RequestOptions) =>
        pagedList(
          (query) =>
            transport.send<Page<ReceivedFunds>>({
              route: routes.listReceivedFunds,
              params: { payment_id: paymentId },
              query,
              options,
            }),
          { ...params },
          (funds) => funds.funds_id,
        ),
      /**
       * Records received funds as returned to the payer outside the gateway, so no refund returns them again.
       * Funds a refund returns (or returned) are refused with INVALID_STATUS.
       */
      returnReceivedFunds: (paymentId: string, fundsId: string, options?: RequestOptions) =>
        transport.send<ReceivedFunds>({
          route: routes.returnReceivedFunds,
          params: { payment_id: paymentId, funds_id: fundsId },
          options,
        }),
    };

    this.refunds = {
      create: (paymentId: string, params: CreateRefundParams = {}, options?: RequestOptions) =>
        transport.send<Refund>({
          route: routes.createRefund,
          params: { payment_id: paymentId },
          body: params,
          options,
        }),
      get: (refundId: string, options?: RequestOptions) =>
        transport.send<Refund>({ route: routes.getRefund, params: { refund_id: refundId }, options }),
      /** A payment's refunds. */
      list: (paymentId: string, params: PageParams = {}, options?: RequestOptions) =>
        pagedList(
          (query) =>
            transport.send<Page<Refund>>({
              route: routes.listRefunds,
              params: { payment_id: paymentId },
              query,
              options,
            }),
          { ...params },
          (refund) => refund.refund_id,
        ),
    };

    this.customers = {
      create: (params: CreateCustomerParams, options?: RequestOptions) =>
        transport.send<Customer>({ route: routes.createCustomer, body: params, options }),
      get: (customerId: string, options?: RequestOptions) =>
        transport.send<Customer>({ route: routes.getCustomer, params: { customer_id: customerId }, options }),
      list: (params: PageParams = {}, options?: RequestOptions) =>
        pagedList(
          (query) => transport.send<Page<Customer>>({ route: routes.listCustomers, query, options }),
          { ...params },
          (customer) => customer.customer_id,
        ),
    };

    this.checkouts = {
      create: (params: CreateCheckoutParams, options?: RequestOptions) =>
        transport.send<Checkout>({ route: routes.createCheckout, body: params, options }),
      get: (checkoutId: string, options?: RequestOptions) =>
        transport.send<CheckoutWithSessions>({
          route: routes.getCheckout,
          params: { checkout_id: checkoutId },
          options,
        }),
      list: (params: PageParams = {}, options?: RequestOptions) =>
        pagedList(
          (query) => transport.send<Page<Checkout>>({ route: routes.listCheckouts, query, options }),
          { ...params },
          (checkout) => checkout.checkout_id,
        ),
      sessions: (checkoutId: string, params: PageParams = {}, options?: RequestOptions) =>
        pagedList(
          (query) =>
            transport.send<Page<CheckoutSession>>({
              route: routes.listCheckoutSessions,
              params: { checkout_id: checkoutId },
              query,
              options,
            }),
          { ...params },
          (session) => session.session_id,
        ),
    };

    const webhookParams = (webhookId: string) => ({ webhook_id: webhookId });
    this.webhooks = {
      /** The answer carries the signing secret, shown this once. */
      create: (params: CreateWebhookParams, options?: RequestOptions) =>
        transport.send<WebhookWithSecret>({ route: routes.createWebhook, body: params, options }),
      get: (webhookId: string, options?: RequestOptions) =>
        transport.send<Webhook>({ route: routes.getWebhook, params: webhookParams(webhookId), options }),
      list: (params: PageParams = {}, options?: RequestOptions) =>
        pagedList(
          (query) => transport.send<Page<Webhook>>({ route: routes.listWebhooks, query, options }),
          { ...params },
          (webhook) => webhook.webhook_id,
        ),
      delete: (webhookId: string, options?: RequestOptions) =>
        transport.send<{ deleted: true }>({
          route: routes.deleteWebhook,
          params: webhookParams(webhookId),
          options,
          goneAnswer: { deleted: true },
        }),
      /** A new secret, shown once; for 24 h deliveries are signed with both. */
      rotateSecret: (webhookId: string, options?: RequestOptions) =>
        transport.send<{ secret: string }>({
          route: routes.rotateWebhookSecret,
          params: webhookParams(webhookId),
          options,
        }),
      /** Delivery history, newest first, with every attempt. */
      deliveries: (webhookId: string, params: ListDeliveriesParams = {}, options?: RequestOptions) =>
        new PagedList<DeliveryPage, WebhookDelivery>(async (cursor) => {
          const page = await transport.send<DeliveryPage>({
            route: routes.listWebhookDeliveries,
            params: webhookParams(webhookId),
            query: { ...params, ...(cursor === undefined ? {} : { cursor }) },
            options,
          });
          return { page, items: page.data, next: page.next_cursor ?? undefined };
        }),
      /** Redelivers now. */
      retryDelivery: (webhookId: string, deliveryId: string, options?: RequestOptions) =>
        transport.send<{ delivery_id: string; status: WebhookDelivery['status'] }>({
          route: routes.retryWebhookDelivery,
          params: { webhook_id: webhookId, delivery_id: deliveryId },
          options,
        }),
      /** Sends a signed `webhook.test` event now and answers how your endpoint replied. */
      test: (webhookId: string, options?: RequestOptions) =>
        transport.send<WebhookTestResult>({
          route: routes.sendTestWebhook,
          params: webhookParams(webhookId),
          options,
        }),
    };

    this.events = {
      /** The business's events of the last 30 days. */
      list: (params: ListEventsParams = {}, options?: RequestOptions) =>
        pagedList(
          (query) => transport.send<Page<Event>>({ route: routes.listEvents, query, options }),
          { ...params },
          (event) => event.id,
        ),
      get: (eventId: string, options?: RequestOptions) =>
        transport.send<Event>({ route: routes.getEvent, params: { event_id: eventId }, options }),
    };

    this.sandbox = {
      /** Drives a sandbox payment through its rail: the PSP simulator pays, the local chain transfers, or the clock. */
      simulate: (paymentId: string, params: SimulateParams, options?: RequestOptions) =>
        transport.send<{ accepted: true }>({
          route: routes.simulatePayment,
          params: { payment_id: paymentId },
          body: params,
          options,
        }),
    };
  }
}
