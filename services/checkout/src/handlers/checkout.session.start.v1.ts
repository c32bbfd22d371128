import type { StartCheckoutSession, StartedCheckoutSession } from '@gateway/contracts';
import type { MessageContext } from '@gateway/messaging';
import { startCheckoutSession, type StartSessionDependencies } from '../application/start-checkout-session';

/** A buyer starts paying on the hosted page (see startCheckoutSession). */
export function handleStartCheckoutSession(deps: StartSessionDependencies) {
  return (command: StartCheckoutSession, context: MessageContext): Promise<StartedCheckoutSession> =>
    startCheckoutSession(deps, command, context);
}
