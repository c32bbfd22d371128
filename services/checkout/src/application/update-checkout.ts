import type { Checkout, UpdateCheckout } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import type { StoredCheckout } from '../domain/records';
import { toCheckout } from '../domain/records';
import { updateBusinessCheckout } from '../persistence';

/**
 * Changes a business's checkout (its title, urls or status); another business's is not found. A redelivered command
 * answers what the first one did.
 */
export function updateCheckout(
  uow: UnitOfWork,
  command: UpdateCheckout,
  changes: Partial<StoredCheckout>,
  context: MessageContext,
): Promise<Checkout> {
  return uow.once(context, async (tx) => {
    const checkout = await updateBusinessCheckout(
      tx.manager,
      command.business_id,
      command.checkout_id,
      changes,
    );
    if (!checkout) throw new CommandError('NOT_FOUND', 'Checkout não encontrado.');
    return toCheckout(checkout);
  });
}
