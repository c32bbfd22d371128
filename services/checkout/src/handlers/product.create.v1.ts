import type { CreateProduct, Product } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { createProduct } from '../application/create-product';

/** Stores a product the operator registered for a business; a redelivered command returns the same one. */
export function handleCreateProduct(uow: UnitOfWork) {
  return (command: CreateProduct, context: MessageContext): Promise<Product> =>
    createProduct(uow, command, context);
}
