import { gatewayNamespaces, type GatewayNamespaces } from './generated/methods';
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

/** `webhooks.deliveries`: a list whose pages carry their own cursor (`next_cursor`, sent back as `cursor`). */
function deliveriesOf(transport: Transport) {
  return (webhookId: string, params: ListDeliveriesParams = {}, options?: RequestOptions) =>
    new PagedList<DeliveryPage, WebhookDelivery>(async (cursor) => {
      const page = await transport.send<DeliveryPage>({
        route: routes.listWebhookDeliveries,
        params: { webhook_id: webhookId },
        query: { ...params, ...(cursor === undefined ? {} : { cursor }) },
        options,
      });
      return { page, items: page.data, next: page.next_cursor ?? undefined };
    });
}

/** `statements.get`: a month's statement (`YYYY-MM`, UTC), answered as CSV text, not JSON. */
function statementOf(transport: Transport) {
  return (month: string, options?: RequestOptions) =>
    transport.send<string>({
      route: routes.getStatement,
      params: { month },
      options,
      accept: 'text/csv',
    });
}

/**
 * The client's namespaces, generated from the gateway's operation table with each method's JSDoc (generated/methods.ts,
 * `pnpm generate:sdk`); only the deliveries' pager and the statement (CSV text) are written here. The class implements them, so a namespace without
 * its field below fails the type check.
 */
type Namespaces = GatewayNamespaces<ReturnType<typeof deliveriesOf>, ReturnType<typeof statementOf>>;

/**
 * The gateway's public API for a business. Each method is one route; POSTs carry an Idempotency-Key (yours, or one
 * generated per call) so their retries are safe; failures throw GatewayError with the contract's code.
 */
export class Gateway implements Namespaces {
  readonly payments: Namespaces['payments'];
  readonly refunds: Namespaces['refunds'];
  readonly disputes: Namespaces['disputes'];
  readonly subscriptions: Namespaces['subscriptions'];
  readonly customers: Namespaces['customers'];
  readonly checkouts: Namespaces['checkouts'];
  readonly products: Namespaces['products'];
  readonly webhooks: Namespaces['webhooks'];
  readonly events: Namespaces['events'];
  readonly balance: Namespaces['balance'];
  readonly balanceTransactions: Namespaces['balanceTransactions'];
  readonly statements: Namespaces['statements'];
  readonly payouts: Namespaces['payouts'];
  /** Sandbox deployments only. */
  readonly sandbox: Namespaces['sandbox'];

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
    const namespaces: Namespaces = gatewayNamespaces(new Operations(transport), {
      webhooks: { deliveries: deliveriesOf(transport) },
      statements: { get: statementOf(transport) },
    });
    this.payments = namespaces.payments;
    this.refunds = namespaces.refunds;
    this.disputes = namespaces.disputes;
    this.subscriptions = namespaces.subscriptions;
    this.customers = namespaces.customers;
    this.checkouts = namespaces.checkouts;
    this.products = namespaces.products;
    this.webhooks = namespaces.webhooks;
    this.events = namespaces.events;
    this.balance = namespaces.balance;
    this.balanceTransactions = namespaces.balanceTransactions;
    this.statements = namespaces.statements;
    this.payouts = namespaces.payouts;
    this.sandbox = namespaces.sandbox;
  }
}
