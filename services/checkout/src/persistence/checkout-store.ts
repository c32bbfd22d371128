import type { EntityManager } from 'typeorm';
import { newestCreatedPage, type Page, type PageRequest } from '@gateway/persistence';
import type { StoredCheckout } from '../domain/records';
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

/** The checkout at a slug, whatever its status. */
export function findCheckoutBySlug(manager: EntityManager, slug: string): Promise<CheckoutEntity | null> {
  return manager.findOneBy(CheckoutEntity, { slug });
}

/** The business's checkout, or null (another business's checkout is not found either). */
export function findBusinessCheckout(
  manager: EntityManager,
  businessId: string,
  checkoutId: string,
): Promise<CheckoutEntity | null> {
  return manager.findOneBy(CheckoutEntity, { id: checkoutId, businessId });
}

/** A page of the business's checkouts, newest first; undefined when `startingAfter` is not one of them. */
export function findCheckoutPage(
  manager: EntityManager,
  businessId: string,
  page: PageRequest,
): Promise<Page<CheckoutEntity> | undefined> {
  return newestCreatedPage(manager, CheckoutEntity, { business_id: businessId }, page);
}

/**
 * Inserts an active checkout unless its slug is taken (then null). ON CONFLICT keeps the transaction usable after a
 * taken slug, so a generated one can be drawn again in it.
 */
export async function insertCheckoutUnlessSlugTaken(
  manager: EntityManager,
  checkout: Omit<StoredCheckout, 'status' | 'createdAt'>,
): Promise<CheckoutEntity | null> {
  const rows: Array<{ id: string }> = await manager.query(
    `INSERT INTO checkouts (id, business_id, product_id, slug, title, return_url, cancel_url, metadata, status)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'active')
     ON CONFLICT (slug) DO NOTHING
     RETURNING id`,
    [
      checkout.id,
      checkout.businessId,
      checkout.productId,
      checkout.slug,
      checkout.title,
      checkout.returnUrl,
      checkout.cancelUrl,
      checkout.metadata,
    ],
  );
  return rows.length === 0 ? null : manager.findOneByOrFail(CheckoutEntity, { id: checkout.id });
}

/** Applies `changes` to the business's checkout and answers it as it now is, or null when it is not the business's. */
export async function updateBusinessCheckout(
  manager: EntityManager,
  businessId: string,
  checkoutId: string,
  changes: Partial<Omit<StoredCheckout, 'id' | 'businessId' | 'createdAt'>>,
): Promise<CheckoutEntity | null> {
  if (Object.keys(changes).length > 0)
    await manager.update(CheckoutEntity, { id: checkoutId, businessId }, changes);
  return findBusinessCheckout(manager, businessId, checkoutId);
}
