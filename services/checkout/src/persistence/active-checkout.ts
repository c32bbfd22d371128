import type { EntityManager } from 'typeorm';
import { CheckoutEntity } from './checkout.entity';
import { ProductEntity } from './product.entity';

export interface ActiveCheckout {
  checkout: CheckoutEntity;
  product: ProductEntity;
}

/** The checkout a buyer reaches at `/c/{slug}`, with its product; an inactive or unknown one is not there. */
export async function findActiveCheckout(
  manager: EntityManager,
  slug: string,
): Promise<ActiveCheckout | null> {
  const checkout = await manager.findOneBy(CheckoutEntity, { slug, status: 'active' });
  if (!checkout) return null;
  const product = await manager.findOneByOrFail(ProductEntity, { id: checkout.productId });
  return { checkout, product };
}
