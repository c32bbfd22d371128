import type { EntityManager } from 'typeorm';
import { newestCreatedPage, type Page, type PageRequest } from '@gateway/persistence';
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

/** A page of the business's products, newest first; undefined when `startingAfter` is not one of them. */
export function findProductPage(
  manager: EntityManager,
  businessId: string,
  page: PageRequest,
): Promise<Page<ProductEntity> | undefined> {
  return newestCreatedPage(manager, ProductEntity, { business_id: businessId }, page);
}

/** Applies `changes` to the business's product and answers it as it now is, or null when it is not the business's. */
export async function updateBusinessProduct(
  manager: EntityManager,
  businessId: string,
  productId: string,
  changes: Partial<Omit<StoredProduct, 'id' | 'businessId' | 'createdAt'>>,
): Promise<ProductEntity | null> {
  if (Object.keys(changes).length > 0)
    await manager.update(ProductEntity, { id: productId, businessId }, changes);
  return findBusinessProduct(manager, businessId, productId);
}
