import type { CryptoRequestClosed } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { applyCryptoRequestClosed } from '../settlement/rail-outcomes';

/** The crypto window ended: decided under the payment's row lock (see applyCryptoRequestClosed). */
export function handleCryptoRequestClosed(uow: UnitOfWork) {
  return async (event: CryptoRequestClosed, context: MessageContext): Promise<void> =>
    uow.once(context, (tx) => applyCryptoRequestClosed(tx, event, context.logger));
}
