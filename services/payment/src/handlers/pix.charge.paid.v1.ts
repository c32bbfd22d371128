import type { PixChargePaid } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { recordRailOutcome } from '../application/record-rail-outcome';
import { pixChargePaidFunds } from '../clients';

/** A PIX arrived for the payment's charge: funds received, decided under the payment's row lock. */
export function handlePixChargePaid(uow: UnitOfWork) {
  return async (event: PixChargePaid, context: MessageContext): Promise<void> =>
    recordRailOutcome(uow, { funds: [pixChargePaidFunds(event)], closure: null }, context);
}
