import type {
  Checkout,
  CheckoutSession,
  CheckoutWithSessions,
  CreateCheckoutParams,
  CreateCustomerParams,
  CreateCryptoPaymentParams,
  CreatePaymentParams,
  CreateRefundParams,
  CreateWebhookParams,
  CryptoInstructions,
  CryptoPayer,
  CryptoPaymentCreated,
  Customer,
  Event,
  EventPayment,
  EventRefund,
  EventType,
  ListDeliveriesParams,
  ListEventsParams,
  ListPaymentsParams,
  PageParams,
  Payment,
  PaymentDetails,
  PaymentUpdated,
  PixInstructions,
  PixPayer,
  PixPaymentCreated,
  ReceivedFunds,
  Refund,
  SimulateParams,
  UpdatePaymentParams,
  Webhook,
  WebhookDelivery,
  WebhookDeliveryAttempt,
  WebhookTestEvent,
  WebhookTestResult,
  WebhookWithSecret,
} from '../../src';

/** Every key of a type, of each member of a union. */
type AllKeys<T> = T extends unknown ? keyof T : never;
/** The keys a value of the type must have (of a union: those every member requires). */
type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];

export interface SdkFields {
  all: string[];
  required: string[];
}

/** Exactly the keys `Wanted`: each of them, and none that `Given` has beside them. */
type Exactly<Wanted extends PropertyKey, Given> = { [K in Wanted]-?: true } & {
  [K in Exclude<keyof Given, Wanted>]: never;
};

/**
 * A type's fields as data, for comparing with a JSON schema. The compiler holds the two lists to the type: a field
 * missing from either, or one the type does not have, does not compile.
 */
const fields =
  <T>() =>
  <All, Required>(
    all: All & Exactly<AllKeys<T>, All>,
    required: Required & Exactly<RequiredKeys<T>, Required>,
  ): SdkFields => ({ all: Object.keys(all).sort(), required: Object.keys(required).sort() });

const paymentKeys = {
  payment_id: true,
  transaction_id: true,
  business_id: true,
  method: true,
  status: true,
  amount_brl: true,
  fee_brl: true,
  net_amount_brl: true,
  external_id: true,
  failure_code: true,
  failure_reason: true,
  customer_id: true,
  refunded_amount_brl: true,
  expires_at: true,
  payer: true,
  created_at: true,
  updated_at: true,
} as const;
const refundKeys = {
  refund_id: true,
  payment_id: true,
  amount_brl: true,
  status: true,
  reason: true,
  failure_reason: true,
  external_id: true,
  returned_funds_id: true,
  created_at: true,
  updated_at: true,
} as const;
const customerKeys = {
  customer_id: true,
  business_id: true,
  email: true,
  phone_number: true,
  document_number: true,
  ip: true,
  metadata: true,
  created_at: true,
} as const;
const checkoutKeys = {
  checkout_id: true,
  business_id: true,
  product_id: true,
  slug: true,
  title: true,
  return_url: true,
  cancel_url: true,
  metadata: true,
  status: true,
  created_at: true,
  url: true,
} as const;
const webhookKeys = {
  webhook_id: true,
  business_id: true,
  url: true,
  events: true,
  status: true,
  created_at: true,
  updated_at: true,
} as const;
const cryptoKeys = {
  currency: true,
  network: true,
  qr_code: true,
  payment_link: true,
  wallet_address: true,
  amount: true,
  expires_at: true,
} as const;
const createdKeys = {
  payment_id: true,
  amount: true,
  status: true,
  fee_brl: true,
  net_amount_brl: true,
  customer_id: true,
} as const;
const eventKeys = { id: true, type: true, created_at: true, business_id: true, data: true } as const;
const sessionKeys = {
  session_id: true,
  checkout_id: true,
  payment_id: true,
  status: true,
  created_at: true,
} as const;
const deliveryKeys = {
  delivery_id: true,
  event_id: true,
  event_type: true,
  status: true,
  attempts: true,
  next_attempt_at: true,
  created_at: true,
} as const;
const attemptKeys = {
  attempted_at: true,
  status_code: true,
  latency_ms: true,
  error: true,
  response_body: true,
} as const;
const receivedFundsKeys = {
  funds_id: true,
  kind: true,
  rail: true,
  reference: true,
  instruction: true,
  amount_brl: true,
  amount_token: true,
  detected_at: true,
  status: true,
  returned_by: true,
  returned_at: true,
} as const;
const pageKeys = { limit: true, starting_after: true } as const;

/** The SDK's response types by the name of the document's schema for them. */
export const responseFields: Record<string, SdkFields> = {
  Payment: fields<Payment>()(paymentKeys, paymentKeys),
  PaymentDetails: fields<PaymentDetails>()({ ...paymentKeys, pix: true, crypto: true }, paymentKeys),
  PixPayer: fields<PixPayer>()({ name: true, document_masked: true }, { name: true, document_masked: true }),
  CryptoPayer: fields<CryptoPayer>()({ address: true }, { address: true }),
  PixPaymentCreated: fields<PixPaymentCreated>()(
    { ...createdKeys, expires_at: true, pix: true },
    { ...createdKeys, expires_at: true, pix: true },
  ),
  CryptoPaymentCreated: fields<CryptoPaymentCreated>()(
    { ...createdKeys, payment_method: true, crypto: true },
    { ...createdKeys, payment_method: true, crypto: true },
  ),
  PixCode: fields<PixInstructions>()(
    { qr_code: true, copia_e_cola: true },
    { qr_code: true, copia_e_cola: true },
  ),
  CryptoPaymentInstructions: fields<CryptoInstructions>()(cryptoKeys, cryptoKeys),
  PaymentUpdated: fields<PaymentUpdated>()(
    {
      payment_id: true,
      amount: true,
      fee_brl: true,
      net_amount_brl: true,
      status: true,
      pix: true,
      crypto: true,
    },
    { payment_id: true, amount: true, fee_brl: true, net_amount_brl: true, status: true },
  ),
  ReceivedFunds: fields<ReceivedFunds>()(receivedFundsKeys, receivedFundsKeys),
  Refund: fields<Refund>()(refundKeys, refundKeys),
  Customer: fields<Customer>()(customerKeys, customerKeys),
  Checkout: fields<Checkout>()(checkoutKeys, checkoutKeys),
  CheckoutWithSessions: fields<CheckoutWithSessions>()(
    { ...checkoutKeys, sessions: true, sessions_has_more: true },
    { ...checkoutKeys, sessions: true, sessions_has_more: true },
  ),
  Webhook: fields<Webhook>()(webhookKeys, webhookKeys),
  WebhookWithSecret: fields<WebhookWithSecret>()(
    { ...webhookKeys, secret: true },
    { ...webhookKeys, secret: true },
  ),
  WebhookDelivery: fields<WebhookDelivery>()(deliveryKeys, deliveryKeys),
  WebhookTested: fields<WebhookTestResult>()(
    { event_id: true, status_code: true, error: true },
    { event_id: true, status_code: true, error: true },
  ),
  Event: fields<Event>()(eventKeys, eventKeys),
  WebhookTestEvent: fields<WebhookTestEvent>()(eventKeys, eventKeys),
};

/** Types the document writes inline, by where they are. */
export const inlineFields = {
  checkoutSession: fields<CheckoutSession>()(sessionKeys, sessionKeys),
  deliveryAttempt: fields<WebhookDeliveryAttempt>()(attemptKeys, attemptKeys),
};

/** The SDK's request bodies by the name of the document's schema for them. */
export const requestFields: Record<string, SdkFields> = {
  CreatePaymentRequest: fields<CreatePaymentParams>()(
    { payment_method: true, amount: true, currency: true, metadata: true, customer_id: true, crypto: true },
    { payment_method: true, amount: true },
  ),
  UpdatePaymentRequest: fields<UpdatePaymentParams>()({ amount: true, metadata: true }, {}),
  CreateRefundRequest: fields<CreateRefundParams>()({ amount: true, reason: true }, {}),
  CreateCustomerRequest: fields<CreateCustomerParams>()(
    { email: true, phone_number: true, document_number: true, metadata: true },
    {},
  ),
  CreateCheckoutRequest: fields<CreateCheckoutParams>()(
    { product_id: true, return_url: true, cancel_url: true, title: true, slug: true, metadata: true },
    { product_id: true, return_url: true, cancel_url: true },
  ),
  CreateWebhookRequest: fields<CreateWebhookParams>()(
    { url: true, events: true },
    { url: true, events: true },
  ),
  SimulatePaymentRequest: fields<SimulateParams>()({ outcome: true, amount: true }, { outcome: true }),
};

/** The query parameters each list operation of the SDK sends, by operationId. */
export const queryFields: Record<string, string[]> = {
  listPayments: fields<ListPaymentsParams>()(
    { ...pageKeys, status: true, method: true, created_gte: true, created_lt: true },
    {},
  ).all,
  listEvents: fields<ListEventsParams>()({ ...pageKeys, type: true }, {}).all,
  listWebhookDeliveries: fields<ListDeliveriesParams>()({ limit: true, cursor: true }, {}).all,
  ...Object.fromEntries(
    [
      'listReceivedFunds',
      'listRefunds',
      'listCustomers',
      'listCheckouts',
      'listCheckoutSessions',
      'listWebhooks',
    ].map((operation) => [operation, fields<PageParams>()(pageKeys, {}).all]),
  ),
};

const eventTypeKeys = {
  'payment.created': true,
  'payment.confirmed': true,
  'payment.expired': true,
  'payment.failed': true,
  'payment.cancelled': true,
  'refund.succeeded': true,
  'refund.failed': true,
} as const;
/** Every value of the SDK's EventType. */
export const eventTypes = fields<Record<EventType, unknown>>()(eventTypeKeys, eventTypeKeys).all;

/** Exactly the values of a string union, as data: a value missing, or one the type does not have, does not compile. */
const values =
  <T extends string>() =>
  <Given>(keys: Given & Exactly<T, Given>): string[] =>
    Object.keys(keys).sort();

const paymentStatusKeys = {
  pending: true,
  processing: true,
  paid: true,
  failed: true,
  expired: true,
  cancelled: true,
} as const;
const methodKeys = { pix: true, crypto: true } as const;
const sessionStatusKeys = {
  initiated: true,
  paid: true,
  expired: true,
  failed: true,
  cancelled: true,
} as const;
const activeKeys = { active: true, inactive: true } as const;
type Session = CheckoutWithSessions['sessions'][number];

/**
 * Every enum of the SDK's types, by where the gateway's OpenAPI document has it (support/openapi-enums.ts names the
 * places): the e2e test requires these to be exactly the document's enums, and no enum of the document to be missing.
 */
export const sdkEnums: Record<string, string[]> = {
  'Payment.status': values<Payment['status']>()(paymentStatusKeys),
  'Payment.method': values<Payment['method']>()(methodKeys),
  'PaymentDetails.status': values<PaymentDetails['status']>()(paymentStatusKeys),
  'PaymentDetails.method': values<PaymentDetails['method']>()(methodKeys),
  'EventPayment.status': values<EventPayment['status']>()(paymentStatusKeys),
  'EventPayment.method': values<EventPayment['method']>()(methodKeys),
  'PixPaymentCreated.status': values<PixPaymentCreated['status']>()(paymentStatusKeys),
  'CryptoPaymentCreated.status': values<CryptoPaymentCreated['status']>()(paymentStatusKeys),
  'CryptoPaymentInstructions.currency': values<CryptoInstructions['currency']>()({
    USDC: true,
    USDT: true,
    EURC: true,
  }),
  'PaymentUpdated.status': values<PaymentUpdated['status']>()(paymentStatusKeys),
  'CreatePaymentRequest.payment_method': values<CreatePaymentParams['payment_method']>()(methodKeys),
  'CreatePaymentRequest.currency': values<NonNullable<CreatePaymentParams['currency']>>()({
    BRL: true,
    brl: true,
  }),
  'CreatePaymentRequest.crypto.currency': values<CreateCryptoPaymentParams['crypto']['currency']>()({
    usdc: true,
    usdt: true,
    eurc: true,
    USDC: true,
    USDT: true,
    EURC: true,
  }),
  'listPayments?status': values<NonNullable<ListPaymentsParams['status']>>()(paymentStatusKeys),
  'listPayments?method': values<NonNullable<ListPaymentsParams['method']>>()(methodKeys),
  'ReceivedFunds.kind': values<ReceivedFunds['kind']>()({
    late: true,
    excess: true,
    partial: true,
    unmatched: true,
    unreadable: true,
  }),
  'ReceivedFunds.rail': values<ReceivedFunds['rail']>()(methodKeys),
  'ReceivedFunds.status': values<ReceivedFunds['status']>()({ held: true, returning: true, returned: true }),
  'Refund.status': values<Refund['status']>()({ pending: true, succeeded: true, failed: true }),
  'EventRefund.status': values<EventRefund['status']>()({ pending: true, succeeded: true, failed: true }),
  'SimulatePaymentRequest.outcome': values<SimulateParams['outcome']>()({
    paid: true,
    failed: true,
    expired: true,
  }),
  'Checkout.status': values<Checkout['status']>()(activeKeys),
  'Checkout.sessions[].status': values<Session['status']>()(sessionStatusKeys),
  'CheckoutWithSessions.status': values<CheckoutWithSessions['status']>()(activeKeys),
  'CheckoutWithSessions.sessions[].status': values<Session['status']>()(sessionStatusKeys),
  'listCheckoutSessions.data[].status': values<CheckoutSession['status']>()(sessionStatusKeys),
  'Webhook.status': values<Webhook['status']>()(activeKeys),
  'Webhook.events[]': values<Webhook['events'][number]>()(eventTypeKeys),
  'WebhookWithSecret.status': values<WebhookWithSecret['status']>()(activeKeys),
  'WebhookWithSecret.events[]': values<WebhookWithSecret['events'][number]>()(eventTypeKeys),
  'CreateWebhookRequest.events[]': values<CreateWebhookParams['events'][number]>()(eventTypeKeys),
  'Event.type': values<Event['type']>()(eventTypeKeys),
  'listEvents?type': values<NonNullable<ListEventsParams['type']>>()(eventTypeKeys),
};

/**
 * Enums the SDK has where the document has a plain string: the document is the one to gain them (the test requires
 * these places to stay enum-less strings, so it fails, and the entry moves to sdkEnums, the day the document has one).
 */
export const enumsTheDocumentLacks: Record<string, string[]> = {
  // The dispatcher's delivery states (packages/contracts WebhookDelivery; its table's CHECK constraint).
  'WebhookDelivery.status': values<WebhookDelivery['status']>()({
    pending: true,
    delivered: true,
    dead: true,
    cancelled: true,
  }),
};
