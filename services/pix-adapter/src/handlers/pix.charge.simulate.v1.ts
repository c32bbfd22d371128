import type { SimulatePixOutcome } from '@gateway/contracts';
import type { MessageContext } from '@gateway/messaging';
import { simulateChargeOutcome, type SimulateOutcomeDeps } from '../application/simulate-charge-outcome';

export function handleSimulateOutcome(deps: SimulateOutcomeDeps) {
  return (command: SimulatePixOutcome, context: MessageContext): Promise<{ accepted: true }> =>
    simulateChargeOutcome(deps, command, context);
}
