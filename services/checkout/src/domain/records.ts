import type {
  Checkout,
  CheckoutSession,
  Product,
  ProductStatus,
  SubscriptionInterval,
} from '@gateway/contracts';

/** A product as this service stores it (the entity has this shape). */
export interface StoredProduct {
  id: string;
  businessId: string;
  /** The merchant's display name for the hosted page, when the operator gave it with the product. */
  businessName: string | null;
  name: string;
  description: string | null;
  priceCentavos: number;
  /** `inactive`: sold by no new checkout. */
  status: ProductStatus;
  /** Recurring: sold as a subscription billed every `interval`; null: a one-off sale. */
  interval: SubscriptionInterval | null;
  createdAt: Date;
}

/** A checkout as this service stores it (the entity has this shape). */
export interface StoredCheckout {
  id: string;
  businessId: string;
  productId: string;
  slug: string;
  title: string | null;
  returnUrl: string;
  cancelUrl: string;
  metadata: string | null;
  status: Checkout['status'];
  createdAt: Date;
}

/** A checkout session as this service stores it (the entity has this shape). */
export interface StoredSession {
  id: string;
  checkoutId: string;
  paymentId: string;
  status: CheckoutSession['status'];
  createdAt: Date;
}

export function toProduct(product: StoredProduct): Product {
  return {
    product_id: product.id,
    business_id: product.businessId,
    name: product.name,
    description: product.description,
    price_centavos: product.priceCentavos,
    status: product.status,
    interval: product.interval,
    created_at: product.createdAt.toISOString(),
  };
}

export function toCheckout(checkout: StoredCheckout): Checkout {
  return {
    checkout_id: checkout.id,
    business_id: checkout.businessId,
    product_id: checkout.productId,
    slug: checkout.slug,
    title: checkout.title,
    return_url: checkout.returnUrl,
    cancel_url: checkout.cancelUrl,
    metadata: checkout.metadata,
    status: checkout.status,
    created_at: checkout.createdAt.toISOString(),
  };
}

export function toSession(session: StoredSession): CheckoutSession {
  return {
    session_id: session.id,
    checkout_id: session.checkoutId,
    payment_id: session.paymentId,
    status: session.status,
    created_at: session.createdAt.toISOString(),
  };
}
