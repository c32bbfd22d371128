import type { Checkout, UpdateCheckout } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import { updateCheckout } from '../application/update-checkout';
import { parseCheckoutChanges } from '../domain/checkout-changes';

/** Validates an update-checkout command and changes the checkout (see updateCheckout). */
export function handleUpdateCheckout(uow: UnitOfWork) {
  return async (command: UpdateCheckout, context: MessageContext): Promise<Checkout> => {
    const parsed = parseCheckoutChanges(command);
    if (!parsed.ok)
      throw new CommandError('INVALID_FIELDS', `Campos inválidos: ${parsed.invalidFields.join(', ')}.`);
    return updateCheckout(uow, command, parsed.value, context);
  };
}
