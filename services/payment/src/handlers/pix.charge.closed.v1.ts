import type { PixChargeClosed } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { recordRailOutcome } from '../application/record-rail-outcome';
import { pixChargeClosure } from '../clients';

/** The PIX charge ended unpaid: a rail closure, decided under the payment's row lock. */
export function handlePixChargeClosed(uow: UnitOfWork) {
  return async (event: PixChargeClosed, context: MessageContext): Promise<void> =>
    recordRailOutcome(uow, { funds: [], closure: pixChargeClosure(event.payment_id, event) }, context);
}
