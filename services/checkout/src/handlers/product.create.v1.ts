import { newPublicId, type CreateProduct, type Product } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { ProductEntity, toProduct } from '../persistence';

/** Stores a product the operator registered for a business; a redelivered command returns the same one. */
export function handleCreateProduct(uow: UnitOfWork) {
  return async (command: CreateProduct, context: MessageContext): Promise<Product> =>
    uow.once(context, async (tx) => {
      const entity = tx.manager.create(ProductEntity, {
        id: newPublicId('prod'),
        businessId: command.business_id,
        businessName: command.business_name ?? null,
        name: command.name,
        description: command.description,
        priceCentavos: command.price_centavos,
      });
      return toProduct(await tx.manager.save(entity));
    });
}
