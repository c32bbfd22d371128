import type { Product, UpdateProduct } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import type { StoredProduct } from '../domain/records';
import { toProduct } from '../domain/records';
import { updateBusinessProduct } from '../persistence';

/**
 * Changes a business's product (its name, description or price: its checkouts sell it so from then on); another
 * business's is not found. A redelivered command answers what the first one did.
 */
export function updateProduct(
  uow: UnitOfWork,
  command: UpdateProduct,
  changes: Partial<StoredProduct>,
  context: MessageContext,
): Promise<Product> {
  return uow.once(context, async (tx) => {
    const product = await updateBusinessProduct(tx.manager, command.business_id, command.product_id, changes);
    if (!product) throw new CommandError('NOT_FOUND', 'Produto não encontrado.');
    return toProduct(product);
  });
}
