import type { FundsAssigned } from '@gateway/contracts';
import { takeOutOfSuspense, type SuspenseOutDeps } from './shared/take-out-of-suspense';

/**
 * `payment.funds.assigned.v1`: the operator assigned held money to a payment's business; it leaves suspense at the
 * value it was booked in and is credited to the business as a payment of its rail would be (pending under the
 * settlement delay, less its fee), once (`funds:out:<money_key>`). Money whose coming in is not posted yet waits for
 * it (the broker delivers it again); money booked without a value cannot be credited: the handler fails and the
 * message is parked for the operator.
 */
export function postAssignedFunds(deps: SuspenseOutDeps, event: FundsAssigned): Promise<{ posted: boolean }> {
  return takeOutOfSuspense(deps, event);
}
