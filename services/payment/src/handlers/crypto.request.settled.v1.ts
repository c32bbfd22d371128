import type { CryptoRequestSettled } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { cryptoSettledFunds } from '../rails';
import { applyFundsReceived } from '../settlement/rail-outcomes';

/** The watcher saw the request's price on chain: funds received, decided under the payment's row lock. */
export function handleCryptoRequestSettled(uow: UnitOfWork) {
  return async (event: CryptoRequestSettled, context: MessageContext): Promise<void> =>
    uow.once(context, (tx) =>
      applyFundsReceived(tx, cryptoSettledFunds(event.payment_id, event), context.logger),
    );
}
