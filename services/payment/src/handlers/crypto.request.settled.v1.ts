import type { CryptoRequestSettled } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { isOpen } from '../domain/payment-status';
import { lockPayment, recordReceivedFunds, transitionPayment } from '../persistence';
import { recordLateFunds } from './late-funds';

/** The watcher saw the full amount on chain: paid with the signature; any excess, or a late transfer, is recorded. */
export function handleCryptoRequestSettled(uow: UnitOfWork) {
  return async (event: CryptoRequestSettled, context: MessageContext): Promise<void> =>
    uow.once(context, async (tx) => {
      const payment = await lockPayment(tx.manager, event.payment_id);
      if (payment?.transactionId === event.signature) return;
      const funds = {
        paymentId: event.payment_id,
        rail: 'crypto' as const,
        railReference: event.signature,
        amountCentavos: null,
      };
      if (!payment || !isOpen(payment.status)) {
        await recordLateFunds(
          tx.manager,
          context.logger,
          { ...funds, amountBaseUnits: event.received_base_units },
          payment?.status ?? null,
        );
        return;
      }
      await transitionPayment(tx, payment.id, { status: 'paid', transactionId: event.signature });
      if (BigInt(event.excess_base_units) > 0n) {
        await recordReceivedFunds(tx.manager, {
          ...funds,
          kind: 'excess',
          amountBaseUnits: event.excess_base_units,
        });
      }
    });
}
