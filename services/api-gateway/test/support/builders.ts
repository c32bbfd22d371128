import {
  newPublicId,
  type Balance,
  type BalanceTransaction,
  type Checkout,
  type CheckoutSession,
  type CreateCheckout,
  type CreateWebhook,
  type Customer,
  type Webhook,
  type WebhookEventName,
} from '@gateway/contracts';

// Builders of what the downstream services answer the gateway (its tests' fakes answer with them): everything
// defaulted to a valid, plausible value, so a test states only what matters to it.

/** An active checkout of a new business and product, created now, with no title or metadata. */
export function aCheckout(overrides: Partial<Checkout> = {}): Checkout {
  return {
    checkout_id: newPublicId('chk'),
    business_id: newPublicId('biz'),
    product_id: newPublicId('prod'),
    slug: 'loja-abc123',
    title: null,
    return_url: 'https://a.example.com',
    cancel_url: 'https://a.example.com',
    metadata: null,
    status: 'active',
    created_at: new Date().toISOString(),
    ...overrides,
  };
}

/** The checkout the checkout service creates for `command`: what it asks for, active, created now. */
export function aCheckoutCreatedFor(command: CreateCheckout, overrides: Partial<Checkout> = {}): Checkout {
  const { business_id, product_id, title, return_url, cancel_url, metadata } = command;
  return aCheckout({ business_id, product_id, title, return_url, cancel_url, metadata, ...overrides });
}

/** A session of the checkout `checkoutId`, initiated now, with its new payment. */
export function aCheckoutSession(
  checkoutId: string,
  overrides: Partial<CheckoutSession> = {},
): CheckoutSession {
  return {
    session_id: newPublicId('sess'),
    checkout_id: checkoutId,
    payment_id: newPublicId('pay'),
    status: 'initiated',
    created_at: new Date().toISOString(),
    ...overrides,
  };
}

/** A customer of a new business, created now, with no contact details, document, IP or metadata. */
export function aCustomer(overrides: Partial<Customer> = {}): Customer {
  return {
    customer_id: newPublicId('cust'),
    business_id: newPublicId('biz'),
    name: null,
    email: null,
    phone_number: null,
    document_number: null,
    ip: null,
    metadata: null,
    created_at: new Date().toISOString(),
    ...overrides,
  };
}

/** The webhook the dispatcher registers for `command`: active, created now, answered this once with its `secret`. */
export function aWebhookCreatedFor(command: CreateWebhook, secret: string): Webhook & { secret: string } {
  return {
    webhook_id: newPublicId('wh'),
    business_id: command.business_id,
    url: command.url,
    // The gateway sends only the names it accepts: the dispatcher would refuse any other.
    events: command.events as WebhookEventName[],
    status: 'active',
    created_at: new Date().toISOString(),
    updated_at: new Date().toISOString(),
    secret,
  };
}

/** The balance of `businessId`, all four parts at zero, last changed now. */
export function aBalance(businessId: string, overrides: Partial<Balance> = {}): Balance {
  return {
    business_id: businessId,
    available_centavos: 0,
    pending_centavos: 0,
    reserved_centavos: 0,
    blocked_centavos: 0,
    updated_at: new Date().toISOString(),
    ...overrides,
  };
}

/** A balance transaction of `businessId`: a R$ 100,00 PIX payment with a R$ 0,99 fee, created now, still pending. */
export function aBalanceTransaction(
  businessId: string,
  overrides: Partial<BalanceTransaction> = {},
): BalanceTransaction {
  const now = new Date();
  return {
    balance_transaction_id: newPublicId('btx'),
    business_id: businessId,
    type: 'payment',
    source_id: newPublicId('pay'),
    amount_centavos: 10_000,
    fee_centavos: 99,
    net_centavos: 9_901,
    status: 'pending',
    available_on: new Date(now.getTime() + 24 * 3600 * 1000).toISOString(),
    created_at: now.toISOString(),
    occurred_at: now.toISOString(),
    description: 'Pagamento PIX',
    ...overrides,
  };
}
