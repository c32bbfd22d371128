import type { CryptoRequestClosed } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { cryptoRequestClosure } from '../rails';
import { applyRailClosure } from '../settlement/rail-outcomes';

/** The crypto window ended unpaid: a rail closure, decided under the payment's row lock. */
export function handleCryptoRequestClosed(uow: UnitOfWork) {
  return async (event: CryptoRequestClosed, context: MessageContext): Promise<void> =>
    uow.once(context, (tx) =>
      applyRailClosure(tx, cryptoRequestClosure(event.payment_id, event), context.logger),
    );
}
