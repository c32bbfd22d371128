import type { CryptoRequestSettled } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { recordRailOutcome } from '../application/record-rail-outcome';
import { cryptoSettledFunds } from '../clients';

/** The watcher saw the request's price on chain: funds received, decided under the payment's row lock. */
export function handleCryptoRequestSettled(uow: UnitOfWork) {
  return async (event: CryptoRequestSettled, context: MessageContext): Promise<void> =>
    recordRailOutcome(uow, { funds: [cryptoSettledFunds(event.payment_id, event)], closure: null }, context);
}
