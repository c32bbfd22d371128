import type { CryptoRequestClosed } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { recordRailOutcome } from '../application/record-rail-outcome';
import { cryptoRequestClosure } from '../clients';

/** The crypto window ended unpaid: a rail closure, decided under the payment's row lock. */
export function handleCryptoRequestClosed(uow: UnitOfWork) {
  return async (event: CryptoRequestClosed, context: MessageContext): Promise<void> =>
    recordRailOutcome(uow, { funds: [], closure: cryptoRequestClosure(event.payment_id, event) }, context);
}
