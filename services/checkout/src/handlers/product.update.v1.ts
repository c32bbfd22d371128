import type { Product, UpdateProduct } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import { updateProduct } from '../application/update-product';
import { parseProductChanges } from '../domain/checkout-changes';

/** Validates an update-product command and changes the product (see updateProduct). */
export function handleUpdateProduct(uow: UnitOfWork) {
  return async (command: UpdateProduct, context: MessageContext): Promise<Product> => {
    const parsed = parseProductChanges(command);
    if (!parsed.ok)
      throw new CommandError('INVALID_FIELDS', `Campos inválidos: ${parsed.invalidFields.join(', ')}.`);
    return updateProduct(uow, command, parsed.value, context);
  };
}
