import type { CryptoRequestSettled } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { applyCryptoRequestSettled } from '../settlement/rail-outcomes';

/** The watcher saw the full amount on chain: decided under the payment's row lock (see applyCryptoRequestSettled). */
export function handleCryptoRequestSettled(uow: UnitOfWork) {
  return async (event: CryptoRequestSettled, context: MessageContext): Promise<void> =>
    uow.once(context, (tx) => applyCryptoRequestSettled(tx, event, context.logger));
}
