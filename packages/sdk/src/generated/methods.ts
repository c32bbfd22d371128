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
      /** Needs the API key scope `payments:write`. */
      create: operation.withBody('createPayment'),
      /** Needs the API key scope `payments:read`. */
      get: operation.plain('getPayment'),
      /** Needs the API key scope `payments:read`. */
      list: operation.list('listPayments', (item) => item.payment_id),
      /** Needs the API key scope `payments:write`. */
      update: operation.withBody('updatePayment'),
      /** Needs the API key scope `payments:write`. */
      cancel: operation.plain('cancelPayment'),
      /** Needs the API key scope `payments:read`. */
      receivedFunds: operation.list('listReceivedFunds', (item) => item.funds_id),
      /**
       * Records received funds as returned to the payer outside the gateway, so no refund returns them again.
       * Funds a refund returns (or returned) are refused with INVALID_STATUS.
       * Needs the API key scope `payments:write`.
       */
      returnReceivedFunds: operation.plain('returnReceivedFunds'),
    },
    refunds: {
      /** Needs the API key scope `refunds:write`. */
      create: operation.withOptionalBody('createRefund'),
      /** Needs the API key scope `refunds:read`. */
      get: operation.plain('getRefund'),
      /**
       * A payment's refunds.
       * Needs the API key scope `refunds:read`.
       */
      list: operation.list('listRefunds', (item) => item.refund_id),
    },
    disputes: {
      /**
       * The business's disputes (MED), newest first.
       * Needs the API key scope `payments:read`.
       */
      list: operation.list('listDisputes', (item) => item.dispute_id),
      /** Needs the API key scope `payments:read`. */
      get: operation.plain('getDispute'),
      /**
       * Sends the business's defence of an open dispute to the PSP.
       * Needs the API key scope `payments:write`.
       */
      defend: operation.withBody('submitDisputeDefence'),
    },
    subscriptions: {
      /**
       * Creates a subscription (Pix Automático).
       * Needs the API key scope `payments:write`.
       */
      create: operation.withBody('createSubscription'),
      /**
       * The business's subscriptions, newest first.
       * Needs the API key scope `payments:read`.
       */
      list: operation.list('listSubscriptions', (item) => item.subscription_id),
      /** Needs the API key scope `payments:read`. */
      get: operation.plain('getSubscription'),
      /** Needs the API key scope `payments:write`. */
      update: operation.withBody('updateSubscription'),
      /** Needs the API key scope `payments:write`. */
      cancel: operation.plain('cancelSubscription'),
    },
    sandbox: {
      /**
       * Drives a sandbox payment through its rail: the PSP simulator pays, the local chain transfers, or the clock.
       * Needs the API key scope `payments:write`.
       */
      simulate: operation.withBody('simulatePayment'),
      /**
       * Has the sandbox payer's bank act on a subscription, for real at the PSP simulator.
       * Needs the API key scope `payments:write`.
       */
      simulateSubscription: operation.withBody('simulateSubscription'),
      /**
       * Moves a sandbox subscription's clock forward, opening and debiting the cycles that fall due.
       * Needs the API key scope `payments:write`.
       */
      advanceSubscription: operation.withBody('advanceSubscriptionClock'),
    },
    checkouts: {
      /** Needs the API key scope `checkouts:write`. */
      create: operation.withBody('createCheckout'),
      /** Needs the API key scope `checkouts:read`. */
      get: operation.plain('getCheckout'),
      /** Needs the API key scope `checkouts:write`. */
      update: operation.withBody('updateCheckout'),
      /** Needs the API key scope `checkouts:read`. */
      list: operation.list('listCheckouts', (item) => item.checkout_id),
      /** Needs the API key scope `checkouts:read`. */
      sessions: operation.list('listCheckoutSessions', (item) => item.session_id),
    },
    products: {
      /** Needs the API key scope `checkouts:write`. */
      create: operation.withBody('createOwnProduct'),
      /** Needs the API key scope `checkouts:read`. */
      list: operation.list('listProducts', (item) => item.product_id),
      /** Needs the API key scope `checkouts:write`. */
      update: operation.withBody('updateProduct'),
    },
    customers: {
      /** Needs the API key scope `customers:write`. */
      create: operation.withBody('createCustomer'),
      /** Needs the API key scope `customers:read`. */
      get: operation.plain('getCustomer'),
      /** Needs the API key scope `customers:read`. */
      list: operation.list('listCustomers', (item) => item.customer_id),
    },
    webhooks: {
      /**
       * The answer carries the signing secret, shown this once.
       * Needs the API key scope `webhooks:write`.
       */
      create: operation.withBody('createWebhook'),
      /** Needs the API key scope `webhooks:read`. */
      get: operation.plain('getWebhook'),
      /** Needs the API key scope `webhooks:read`. */
      list: operation.list('listWebhooks', (item) => item.webhook_id),
      /** Needs the API key scope `webhooks:write`. */
      delete: operation.plain('deleteWebhook', { goneAnswer: { deleted: true } }),
      /**
       * A new secret, shown once; for 24 h deliveries are signed with both.
       * Needs the API key scope `webhooks:write`.
       */
      rotateSecret: operation.plain('rotateWebhookSecret'),
      /**
       * Delivery history, newest first, with every attempt.
       * Needs the API key scope `webhooks:read`.
       */
      deliveries: own.webhooks.deliveries,
      /**
       * Redelivers now.
       * Needs the API key scope `webhooks:write`.
       */
      retryDelivery: operation.plain('retryWebhookDelivery'),
      /**
       * Sends a signed `webhook.test` event now and answers how your endpoint replied.
       * Needs the API key scope `webhooks:write`.
       */
      test: operation.plain('sendTestWebhook'),
    },
    events: {
      /**
       * The business's events of the last 30 days.
       * Needs the API key scope `events:read`.
       */
      list: operation.list('listEvents', (item) => item.id),
      /** Needs the API key scope `events:read`. */
      get: operation.plain('getEvent'),
    },
    balance: {
      /**
       * The business's balance in its four parts.
       * Needs the API key scope `balance:read`.
       */
      get: operation.plain('getBalance'),
    },
    balanceTransactions: {
      /**
       * The business's balance transactions.
       * Needs the API key scope `balance:read`.
       */
      list: operation.list('listBalanceTransactions', (item) => item.id),
    },
    statements: {
      /**
       * A month's statement (`YYYY-MM`, UTC) as CSV text.
       * Needs the API key scope `balance:read`.
       */
      get: own.statements.get,
    },
    payouts: {
      /** Needs the API key scope `payouts:write`. */
      create: operation.withOptionalBody('createPayout'),
      /** Needs the API key scope `payouts:read`. */
      get: operation.plain('getPayout'),
      /**
       * The business's payouts.
       * Needs the API key scope `payouts:read`.
       */
      list: operation.list('listPayouts', (item) => item.payout_id),
    },
  };
}

/** The namespaces, given the types of the methods the SDK writes itself. */
export type GatewayNamespaces<WebhooksDeliveries, StatementsGet> = ReturnType<
  typeof gatewayNamespaces<WebhooksDeliveries, StatementsGet>
>;
