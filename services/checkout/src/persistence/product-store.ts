import type { EntityManager } from 'typeorm';
import type { StoredProduct } from '../domain/records';
import { ProductEntity } from './product.entity';

/** The business's product, or null (another business's product is not found either). */
export function findBusinessProduct(
  manager: EntityManager,
  businessId: string,
  productId: string,
): Promise<ProductEntity | null> {
  return manager.findOneBy(ProductEntity, { id: productId, businessId });
}

/** Inserts a new product (its creation time is the database's). */
export function saveProduct(
  manager: EntityManager,
  product: Omit<StoredProduct, 'createdAt'>,
): Promise<ProductEntity> {
  return manager.save(manager.create(ProductEntity, product));
}
