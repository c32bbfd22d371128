import { newPublicId, type CreateProduct, type Product } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { toProduct } from '../domain/records';
import { saveProduct } from '../persistence';

/** Stores a product the operator registered for a business; a redelivered command returns the same one. */
export function createProduct(
  uow: UnitOfWork,
  command: CreateProduct,
  context: MessageContext,
): Promise<Product> {
  return uow.once(context, async (tx) =>
    toProduct(
      await saveProduct(tx.manager, {
        id: newPublicId('prod'),
        businessId: command.business_id,
        businessName: command.business_name ?? null,
        name: command.name,
        description: command.description,
        priceCentavos: command.price_centavos,
        status: 'active',
        interval: command.interval ?? null,
      }),
    ),
  );
}
