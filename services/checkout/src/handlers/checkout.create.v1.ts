import { randomInt } from 'node:crypto';
import { newPublicId, type Checkout, type CreateCheckout } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import type { EntityManager } from 'typeorm';
import { parseCheckoutInput, type CheckoutInput } from '../domain/checkout-input';
import { generatedSlug, randomSlugSuffix, type RandomInt } from '../domain/slug';
import { CheckoutEntity, ProductEntity, toCheckout } from '../persistence';

/** 36^6 suffixes make a collision rare; a few fresh draws make a failure after them practically impossible. */
const GENERATED_SLUG_ATTEMPTS = 5;

/**
 * Creates an active checkout for one of the business's products, under the caller's slug or a generated one
 * (title or product name + random suffix, drawn again on the rare collision). A redelivered command returns the
 * same checkout.
 */
export function handleCreateCheckout(uow: UnitOfWork, random: RandomInt = (max) => randomInt(max)) {
  return async (command: CreateCheckout, context: MessageContext): Promise<Checkout> => {
    const parsed = parseCheckoutInput({ ...command });
    if (!parsed.ok) {
      if (parsed.missingFields.length > 0) {
        throw new CommandError(
          'MISSING_FIELDS',
          `Campos obrigatórios ausentes: ${parsed.missingFields.join(', ')}.`,
        );
      }
      throw new CommandError('INVALID_FIELDS', `Campos inválidos: ${parsed.invalidFields.join(', ')}.`);
    }
    const input = parsed.value;
    return uow.once(context, async (tx) => {
      const product = await tx.manager.findOneBy(ProductEntity, {
        id: input.product_id,
        businessId: command.business_id,
      });
      if (!product) throw new CommandError('NOT_FOUND', 'Produto não encontrado.');
      if (input.slug !== null) {
        const created = await insertUnlessSlugTaken(tx.manager, command.business_id, input, input.slug);
        if (!created) throw new CommandError('INVALID_FIELDS', 'Campos inválidos: slug (já está em uso).');
        return toCheckout(created);
      }
      for (let attempt = 1; attempt <= GENERATED_SLUG_ATTEMPTS; attempt += 1) {
        const slug = generatedSlug(input.title ?? product.name, randomSlugSuffix(random));
        const created = await insertUnlessSlugTaken(tx.manager, command.business_id, input, slug);
        if (created) return toCheckout(created);
      }
      throw new Error(`no free slug after ${GENERATED_SLUG_ATTEMPTS} generated candidates`);
    });
  };
}

/** ON CONFLICT keeps the transaction usable after a taken slug, so a generated one can be drawn again in it. */
async function insertUnlessSlugTaken(
  manager: EntityManager,
  businessId: string,
  input: CheckoutInput,
  slug: string,
): Promise<CheckoutEntity | null> {
  const id = newPublicId('chk');
  const rows: Array<{ id: string }> = await manager.query(
    `INSERT INTO checkouts (id, business_id, product_id, slug, title, return_url, cancel_url, metadata, status)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'active')
     ON CONFLICT (slug) DO NOTHING
     RETURNING id`,
    [id, businessId, input.product_id, slug, input.title, input.return_url, input.cancel_url, input.metadata],
  );
  return rows.length === 0 ? null : manager.findOneByOrFail(CheckoutEntity, { id });
}
