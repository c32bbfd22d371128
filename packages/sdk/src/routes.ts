export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface Route {
  method: HttpMethod;
  /** OpenAPI-style template: `/v1/payments/{payment_id}`. */
  path: string;
}

/**
 * Every public route the client calls, one entry each: the client builds its requests from this table, so comparing
 * it with the gateway's OpenAPI document keeps the two in step.
 */
export const routes = {
  createPayment: { method: 'POST', path: '/v1/payments' },
  listPayments: { method: 'GET', path: '/v1/payments' },
  getPayment: { method: 'GET', path: '/v1/payments/{payment_id}' },
  updatePayment: { method: 'PATCH', path: '/v1/payments/{payment_id}' },
  cancelPayment: { method: 'POST', path: '/v1/payments/{payment_id}/cancel' },
  listReceivedFunds: { method: 'GET', path: '/v1/payments/{payment_id}/received-funds' },
  returnReceivedFunds: { method: 'POST', path: '/v1/payments/{payment_id}/received-funds/{funds_id}/return' },
  createRefund: { method: 'POST', path: '/v1/payments/{payment_id}/refunds' },
  listRefunds: { method: 'GET', path: '/v1/payments/{payment_id}/refunds' },
  getRefund: { method: 'GET', path: '/v1/refunds/{refund_id}' },
  createCustomer: { method: 'POST', path: '/v1/customers' },
  listCustomers: { method: 'GET', path: '/v1/customers' },
  getCustomer: { method: 'GET', path: '/v1/customers/{customer_id}' },
  createCheckout: { method: 'POST', path: '/v1/checkouts' },
  listCheckouts: { method: 'GET', path: '/v1/checkouts' },
  getCheckout: { method: 'GET', path: '/v1/checkouts/{checkout_id}' },
  listCheckoutSessions: { method: 'GET', path: '/v1/checkouts/{checkout_id}/sessions' },
  createWebhook: { method: 'POST', path: '/v1/webhook' },
  listWebhooks: { method: 'GET', path: '/v1/webhook' },
  getWebhook: { method: 'GET', path: '/v1/webhook/{webhook_id}' },
  deleteWebhook: { method: 'DELETE', path: '/v1/webhook/{webhook_id}' },
  rotateWebhookSecret: { method: 'POST', path: '/v1/webhook/{webhook_id}/rotate-secret' },
  listWebhookDeliveries: { method: 'GET', path: '/v1/webhook/{webhook_id}/deliveries' },
  retryWebhookDelivery: { method: 'POST', path: '/v1/webhook/{webhook_id}/deliveries/{delivery_id}/retry' },
  sendTestWebhook: { method: 'POST', path: '/v1/webhook/{webhook_id}/test' },
  listEvents: { method: 'GET', path: '/v1/events' },
  getEvent: { method: 'GET', path: '/v1/events/{event_id}' },
  simulatePayment: { method: 'POST', path: '/v1/sandbox/payments/{payment_id}/simulate' },
} as const satisfies Record<string, Route>;

/** The route's path with its parameters filled in, each encoded as one path segment. */
export function routePath(route: Route, params: Readonly<Record<string, string>>): string {
  return route.path.replace(/\{(\w+)\}/g, (_match, name: string) => {
    const value = params[name];
    if (value === undefined || value === '') throw new TypeError(`${name} is required`);
    return encodeURIComponent(value);
  });
}
