// Generated from the gateway's operation table by `pnpm generate:sdk` (scripts/generate-sdk-methods.ts): do not
// edit. The client's namespaces, one method per operation whose entry has an `sdk` field, in the table's order.

import type { Operations } from '../operations';

/**
 * Every namespace of the client, each method made by `operation` from its route, or given in `own` when the SDK
 * writes it itself (client.ts).
 */
export function gatewayNamespaces<WebhooksDeliveries, StatementsGet>(
  operation: Operations,
  own: { webhooks: { deliveries: WebhooksDeliveries }; statements: { get: StatementsGet } },
) {
  return {
    payments: {
      create: operation.withBody('createPayment'),
      get: operation.plain('getPayment'),
      list: operation.list('listPayments', (item) => item.payment_id),
      update: operation.withBody('updatePayment'),
      cancel: operation.plain('cancelPayment'),
      receivedFunds: operation.list('listReceivedFunds', (item) => item.funds_id),
      /**
       * Records received funds as returned to the payer outside the gateway, so no refund returns them again.
       * Funds a refund returns (or returned) are refused with INVALID_STATUS.
       */
      returnReceivedFunds: operation.plain('returnReceivedFunds'),
    },
    refunds: {
      create: operation.withOptionalBody('createRefund'),
      get: operation.plain('getRefund'),
      /** A payment's refunds. */
      list: operation.list('listRefunds', (item) => item.refund_id),
    },
    sandbox: {
      /** Drives a sandbox payment through its rail: the PSP simulator pays, the local chain transfers, or the clock. */
      simulate: operation.withBody('simulatePayment'),
    },
    checkouts: {
      create: operation.withBody('createCheckout'),
      get: operation.plain('getCheckout'),
      list: operation.list('listCheckouts', (item) => item.checkout_id),
      sessions: operation.list('listCheckoutSessions', (item) => item.session_id),
    },
    customers: {
      create: operation.withBody('createCustomer'),
      get: operation.plain('getCustomer'),
      list: operation.list('listCustomers', (item) => item.customer_id),
    },
    webhooks: {
      /** The answer carries the signing secret, shown this once. */
      create: operation.withBody('createWebhook'),
      get: operation.plain('getWebhook'),
      list: operation.list('listWebhooks', (item) => item.webhook_id),
      delete: operation.plain('deleteWebhook', { goneAnswer: { deleted: true } }),
      /** A new secret, shown once; for 24 h deliveries are signed with both. */
      rotateSecret: operation.plain('rotateWebhookSecret'),
      /** Delivery history, newest first, with every attempt. */
      deliveries: own.webhooks.deliveries,
      /** Redelivers now. */
      retryDelivery: operation.plain('retryWebhookDelivery'),
      /** Sends a signed `webhook.test` event now and answers how your endpoint replied. */
      test: operation.plain('sendTestWebhook'),
    },
    events: {
      /** The business's events of the last 30 days. */
      list: operation.list('listEvents', (item) => item.id),
      get: operation.plain('getEvent'),
    },
    balance: {
      /** The business's balance in its four parts. */
      get: operation.plain('getBalance'),
    },
    balanceTransactions: {
      /** The business's balance transactions. */
      list: operation.list('listBalanceTransactions', (item) => item.id),
    },
    statements: {
      /** A month's statement (`YYYY-MM`, UTC) as CSV text. */
      get: own.statements.get,
    },
    payouts: {
      create: operation.withOptionalBody('createPayout'),
      get: operation.plain('getPayout'),
      /** The business's payouts. */
      list: operation.list('listPayouts', (item) => item.payout_id),
    },
  };
}

/** The namespaces, given the types of the methods the SDK writes itself. */
export type GatewayNamespaces<WebhooksDeliveries, StatementsGet> = ReturnType<
  typeof gatewayNamespaces<WebhooksDeliveries, StatementsGet>
>;
