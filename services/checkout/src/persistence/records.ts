import type { Checkout, CheckoutSession, Product } from '@gateway/contracts';
import type { CheckoutEntity } from './checkout.entity';
import type { ProductEntity } from './product.entity';
import type { SessionEntity } from './session.entity';

export function toProduct(entity: ProductEntity): Product {
  return {
    product_id: entity.id,
    business_id: entity.businessId,
    name: entity.name,
    description: entity.description,
    price_centavos: entity.priceCentavos,
    created_at: entity.createdAt.toISOString(),
  };
}

export function toCheckout(entity: CheckoutEntity): Checkout {
  return {
    checkout_id: entity.id,
    business_id: entity.businessId,
    product_id: entity.productId,
    slug: entity.slug,
    title: entity.title,
    return_url: entity.returnUrl,
    cancel_url: entity.cancelUrl,
    metadata: entity.metadata,
    status: entity.status,
    created_at: entity.createdAt.toISOString(),
  };
}

export function toSession(entity: SessionEntity): CheckoutSession {
  return {
    session_id: entity.id,
    checkout_id: entity.checkoutId,
    payment_id: entity.paymentId,
    status: entity.status,
    created_at: entity.createdAt.toISOString(),
  };
}
