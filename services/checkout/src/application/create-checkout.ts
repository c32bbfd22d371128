import { newPublicId, type Checkout } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import type { EntityManager } from 'typeorm';
import type { CheckoutInput } from '../domain/checkout-input';
import { toCheckout } from '../domain/records';
import { generatedSlug, randomSlugSuffix, type RandomInt } from '../domain/slug';
import { findBusinessProduct, insertCheckoutUnlessSlugTaken, type CheckoutEntity } from '../persistence';

/** 36^6 suffixes make a collision rare; a few fresh draws make a failure after them practically impossible. */
const GENERATED_SLUG_ATTEMPTS = 5;

/**
 * Creates an active checkout for one of the business's active products (an inactive one is INVALID_STATUS), under the caller's slug or a generated one
 * (title or product name + random suffix, drawn again on the rare collision). A redelivered command returns the
 * same checkout.
 */
export function createCheckout(
  uow: UnitOfWork,
  businessId: string,
  input: CheckoutInput,
  context: MessageContext,
  random: RandomInt,
): Promise<Checkout> {
  return uow.once(context, async (tx) => {
    const product = await findBusinessProduct(tx.manager, businessId, input.product_id);
    if (!product) throw new CommandError('NOT_FOUND', 'Produto não encontrado.');
    if (product.status !== 'active')
      throw new CommandError('INVALID_STATUS', 'Produto desativado: reative-o para criar checkouts dele.');
    if (input.slug !== null) {
      const created = await insertUnlessSlugTaken(tx.manager, businessId, input, input.slug);
      if (!created) throw new CommandError('INVALID_FIELDS', 'Campos inválidos: slug (já está em uso).');
      return toCheckout(created);
    }
    for (let attempt = 1; attempt <= GENERATED_SLUG_ATTEMPTS; attempt += 1) {
      const slug = generatedSlug(input.title ?? product.name, randomSlugSuffix(random));
      const created = await insertUnlessSlugTaken(tx.manager, businessId, input, slug);
      if (created) return toCheckout(created);
    }
    throw new Error(`no free slug after ${GENERATED_SLUG_ATTEMPTS} generated candidates`);
  });
}

function insertUnlessSlugTaken(
  manager: EntityManager,
  businessId: string,
  input: CheckoutInput,
  slug: string,
): Promise<CheckoutEntity | null> {
  return insertCheckoutUnlessSlugTaken(manager, {
    id: newPublicId('chk'),
    businessId,
    productId: input.product_id,
    slug,
    title: input.title,
    returnUrl: input.return_url,
    cancelUrl: input.cancel_url,
    metadata: input.metadata,
  });
}
