import { randomInt } from 'node:crypto';
import type { Checkout, CreateCheckout } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import { createCheckout } from '../application/create-checkout';
import { parseCheckoutInput } from '../domain/checkout-input';
import type { RandomInt } from '../domain/slug';

/**
 * Validates a create-checkout command and creates the checkout (see createCheckout); `random` draws the suffix of a
 * generated slug.
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
    return createCheckout(uow, command.business_id, parsed.value, context, random);
  };
}
