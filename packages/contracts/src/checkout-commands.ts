import Joi from 'joi';
import { defineCommand } from './message';
import {
  amountCentavos,
  boundedText,
  businessId,
  businessName,
  centavos,
  givenId,
  isoDate,
  productName,
  publicId,
} from './common';
import { PAGE_LIMIT_MAX, pageLimit, pageSchema, type Page, type PageQuery } from './pages';
import type { PaymentView } from './payment-commands';
import { subscriptionId, subscriptionIntervals, type SubscriptionInterval } from './recurrence-messages';
import {
  checkoutSessionStatuses,
  paymentMethods,
  tokens,
  type CheckoutSession,
  type HttpApi,
  type PaymentMethod,
  type Token,
} from './public-api';

export interface Product {
  product_id: string;
  business_id: string;
  name: string;
  description: string | null;
  price_centavos: number;
  /** `inactive`: no new checkout sells it (its existing checkouts are left as they are). */
  status: ProductStatus;
  /**
   * Recurring: its checkouts start a subscription billed every `interval` (Pix Automático, journey
   * `qr_with_first_payment`); null (or absent, from a service before it) for a one-off sale.
   */
  interval?: SubscriptionInterval | null;
  created_at: string;
}
export const productStatuses = ['active', 'inactive'] as const;
export type ProductStatus = (typeof productStatuses)[number];
const productSchema = Joi.object<Product>({
  product_id: Joi.string().required(),
  business_id: businessId.required(),
  name: Joi.string().required(),
  description: Joi.string().allow(null).required(),
  price_centavos: centavos.required(),
  status: Joi.valid(...productStatuses).required(),
  interval: Joi.valid(...subscriptionIntervals).allow(null),
  created_at: isoDate.required(),
});

export interface CreateProduct {
  business_id: string;
  name: string;
  description: string | null;
  price_centavos: number;
  /** The merchant's display name, shown as `business_name` on the hosted page of this product's checkouts. */
  business_name?: string;
  /** Recurring: billed every `interval`; absent or null: a one-off sale. */
  interval?: SubscriptionInterval | null;
}
export const createProduct = defineCommand<CreateProduct, Product>(
  'product.create.v1',
  'checkout',
  Joi.object({
    business_id: businessId.required(),
    name: productName.required(),
    description: boundedText('description').allow(null).required(),
    price_centavos: amountCentavos.required(),
    business_name: businessName,
    interval: Joi.valid(...subscriptionIntervals).allow(null),
  }),
  productSchema,
  ['MISSING_FIELDS', 'INVALID_FIELDS'],
);

/** `prod_` + url-safe characters. */
export const productId = publicId('prod');

/** A page of the business's products, newest first (creation time, then id). */
export interface ListProducts extends PageQuery {
  business_id: string;
}
export const listProducts = defineCommand<ListProducts, Page<Product>>(
  'product.list.v1',
  'checkout',
  Joi.object({
    business_id: businessId.required(),
    limit: pageLimit,
    starting_after: productId.allow(null),
  }),
  pageSchema(productSchema),
  ['INVALID_FIELDS'],
);

/**
 * What changes on a product: only the fields given. Its checkouts sell it as it is from then on; `inactive` keeps new
 * checkouts from selling it, `active` allows them again.
 */
export interface UpdateProduct {
  business_id: string;
  product_id: string;
  name?: string;
  description?: string | null;
  price_centavos?: number;
  status?: ProductStatus;
}
export const updateProduct = defineCommand<UpdateProduct, Product>(
  'product.update.v1',
  'checkout',
  Joi.object({
    business_id: businessId.required(),
    product_id: givenId.required(),
    name: productName,
    description: boundedText('description').allow(null),
    price_centavos: amountCentavos,
    status: Joi.valid(...productStatuses),
  }),
  productSchema,
  ['NOT_FOUND', 'INVALID_FIELDS'],
);

/**
 * A checkout as the checkout service answers it: the public record without the `url` the gateway adds; a read embeds
 * the newest EMBEDDED_SESSIONS_MAX sessions, newest first, and whether older ones exist (checkout.sessions.list.v1).
 */
export type Checkout = Omit<HttpApi.Checkout, 'url'>;
/** How many sessions a checkout read embeds; the rest are paged through checkout.sessions.list.v1. */
export const EMBEDDED_SESSIONS_MAX = PAGE_LIMIT_MAX;
export const sessionId = publicId('sess');
const sessionSchema = Joi.object<CheckoutSession>({
  session_id: Joi.string().required(),
  checkout_id: Joi.string().required(),
  payment_id: Joi.string().required(),
  status: Joi.valid(...checkoutSessionStatuses).required(),
  created_at: isoDate.required(),
});
const checkoutSchema = Joi.object<Checkout>({
  checkout_id: Joi.string().required(),
  business_id: businessId.required(),
  product_id: Joi.string().required(),
  slug: Joi.string().required(),
  title: Joi.string().allow(null).required(),
  return_url: Joi.string().required(),
  cancel_url: Joi.string().required(),
  metadata: Joi.string().allow(null).required(),
  status: Joi.valid('active', 'inactive').required(),
  created_at: isoDate.required(),
  sessions: Joi.array().items(sessionSchema).max(EMBEDDED_SESSIONS_MAX),
  sessions_has_more: Joi.boolean(),
});

export interface CreateCheckout {
  business_id: string;
  product_id: string;
  return_url: string;
  cancel_url: string;
  title: string | null;
  slug: string | null;
  metadata: string | null;
}
export const createCheckout = defineCommand<CreateCheckout, Checkout>(
  'checkout.create.v1',
  'checkout',
  Joi.object({
    business_id: businessId.required(),
    product_id: givenId.required(),
    return_url: boundedText('url').required(),
    cancel_url: boundedText('url').required(),
    title: boundedText('title').allow(null).required(),
    slug: boundedText('slug').allow(null).required(),
    metadata: boundedText('metadata').allow(null).required(),
  }),
  checkoutSchema,
  // INVALID_STATUS: the product is inactive.
  ['MISSING_FIELDS', 'INVALID_FIELDS', 'NOT_FOUND', 'INVALID_STATUS'],
);

export const getCheckout = defineCommand<{ business_id: string; checkout_id: string }, Checkout>(
  'checkout.get.v1',
  'checkout',
  Joi.object({ business_id: businessId.required(), checkout_id: givenId.required() }),
  checkoutSchema,
  ['NOT_FOUND'],
);

/**
 * What changes on a checkout: only the fields given. `inactive` takes its hosted page down (a session already started
 * goes on); `active` puts it back.
 */
export interface UpdateCheckout {
  business_id: string;
  checkout_id: string;
  title?: string | null;
  return_url?: string;
  cancel_url?: string;
  status?: Checkout['status'];
}
export const updateCheckout = defineCommand<UpdateCheckout, Checkout>(
  'checkout.update.v1',
  'checkout',
  Joi.object({
    business_id: businessId.required(),
    checkout_id: givenId.required(),
    title: boundedText('title').allow(null),
    return_url: boundedText('url'),
    cancel_url: boundedText('url'),
    status: Joi.valid('active', 'inactive'),
  }),
  checkoutSchema,
  ['NOT_FOUND', 'INVALID_FIELDS'],
);

/** `chk_` + url-safe characters. */
export const checkoutId = publicId('chk');

/** A page of the business's checkouts, newest first (creation time, then id), without their sessions. */
export interface ListCheckouts extends PageQuery {
  business_id: string;
}
export const listCheckouts = defineCommand<ListCheckouts, Page<Checkout>>(
  'checkout.list.v1',
  'checkout',
  Joi.object({
    business_id: businessId.required(),
    limit: pageLimit,
    starting_after: checkoutId.allow(null),
  }),
  pageSchema(checkoutSchema),
  ['INVALID_FIELDS'],
);

/** A page of a checkout's sessions, newest first (`starting_after` = a `session_id`). */
export interface ListCheckoutSessions extends PageQuery {
  business_id: string;
  checkout_id: string;
}
export const listCheckoutSessions = defineCommand<ListCheckoutSessions, Page<CheckoutSession>>(
  'checkout.sessions.list.v1',
  'checkout',
  Joi.object({
    business_id: businessId.required(),
    checkout_id: givenId.required(),
    limit: pageLimit,
    starting_after: sessionId.allow(null),
  }),
  pageSchema(sessionSchema),
  ['NOT_FOUND', 'INVALID_FIELDS'],
);

/** What the hosted page needs to render a checkout; public, so it carries nothing private. */
export interface CheckoutPage {
  slug: string;
  business_id: string;
  business_name: string;
  product_name: string;
  product_description: string | null;
  title: string;
  price_centavos: number;
  cancel_url: string;
  /** The product's: the page sells a subscription of `price_centavos` per interval; null or absent: a one-off sale. */
  interval?: SubscriptionInterval | null;
}
export const getCheckoutPage = defineCommand<{ slug: string }, CheckoutPage>(
  'checkout.page.get.v1',
  'checkout',
  Joi.object({ slug: givenId.required() }),
  Joi.object({
    slug: Joi.string().required(),
    business_id: businessId.required(),
    business_name: Joi.string().required(),
    product_name: Joi.string().required(),
    product_description: Joi.string().allow(null).required(),
    title: Joi.string().required(),
    price_centavos: centavos.required(),
    cancel_url: Joi.string().required(),
    interval: Joi.valid(...subscriptionIntervals).allow(null),
  }),
  ['NOT_FOUND'],
);

/** Who subscribes on the hosted page of a recurring product: the debtor of the subscription (API Pix's pair). */
export interface CheckoutBuyer {
  name: string;
  /** A CPF, digits with or without punctuation (its check digits are verified where customers are kept). */
  document: string;
}
/** A CPF as a buyer types it: 11 digits, maybe with the usual dots, dash and spaces. */
const CPF_AS_TYPED = /^[\d.\s-]{11,18}$/;

export interface StartCheckoutSession {
  slug: string;
  business_name: string;
  method: PaymentMethod;
  token: Token | null;
  /** Required for a recurring product (MISSING_FIELDS without it), ignored for a one-off one. */
  buyer?: CheckoutBuyer | null;
}
export interface StartedCheckoutSession {
  session_id: string;
  status: 'initiated';
  /** For a recurring product, its subscription's first cycle: its QR code pays it and authorizes the others. */
  payment: PaymentView;
  /** The subscription a recurring product's session started; absent for a one-off sale. */
  subscription_id?: string;
}
export const startCheckoutSession = defineCommand<StartCheckoutSession, StartedCheckoutSession>(
  'checkout.session.start.v1',
  'checkout',
  Joi.object({
    slug: givenId.required(),
    business_name: Joi.string().required(),
    method: Joi.valid(...paymentMethods).required(),
    token: Joi.valid(...tokens, null).required(),
    buyer: Joi.object<CheckoutBuyer>({
      name: boundedText('name').required(),
      document: Joi.string().pattern(CPF_AS_TYPED).required(),
    }).allow(null),
  }),
  Joi.object({
    session_id: Joi.string().required(),
    status: Joi.valid('initiated').required(),
    payment: Joi.object().required(),
    subscription_id: subscriptionId,
  }),
  // UNSUPPORTED_PAYMENT_METHOD: crypto for a recurring product (a subscription is paid by Pix Automático only).
  [
    'NOT_FOUND',
    'MISSING_FIELDS',
    'INVALID_FIELDS',
    'INVALID_AMOUNT',
    'NO_FEE_RULE',
    'IDEMPOTENCY_CONFLICT',
    'UNSUPPORTED_PAYMENT_METHOD',
    'AUTOMATIC_PIX_NOT_SUPPORTED',
  ],
);

/** `payment_id` and `business_id` are for the gateway (to cancel the session's payment); the page never gets them. */
export interface CheckoutSessionStatus {
  status: CheckoutSession['status'];
  return_url: string | null;
  payment_id: string;
  business_id: string;
}
export const getCheckoutSessionStatus = defineCommand<
  { slug: string; session_id: string },
  CheckoutSessionStatus
>(
  'checkout.session.status.v1',
  'checkout',
  Joi.object({ slug: givenId.required(), session_id: givenId.required() }),
  Joi.object({
    status: Joi.valid(...checkoutSessionStatuses).required(),
    return_url: Joi.string().allow(null).required(),
    payment_id: Joi.string().required(),
    business_id: businessId.required(),
  }),
  ['NOT_FOUND'],
);
