import type { CryptoTransferUnapplied } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { keepUnappliedTransfer } from '../application/keep-late-funds';

/** The watcher saw a transfer for the payment that did not count towards it: kept as late (or unmatched) funds. */
export function handleCryptoTransferUnapplied(uow: UnitOfWork) {
  return async (event: CryptoTransferUnapplied, context: MessageContext): Promise<void> =>
    keepUnappliedTransfer(uow, event, context);
}
