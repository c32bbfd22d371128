import type { SimulatePayment } from '@gateway/contracts';
import type { MessageContext } from '@gateway/messaging';
import { simulateRailOutcome, type SimulatePaymentDeps } from '../application/simulate-payment';

/** Sandbox only: makes the asked outcome happen at the payment's rail; a retried command gets the first answer. */
export function handleSimulatePayment(deps: SimulatePaymentDeps) {
  return async (command: SimulatePayment, context: MessageContext): Promise<{ accepted: true }> =>
    simulateRailOutcome(deps, command, context);
}
