import type { FundsReturned } from '@gateway/contracts';
import { takeOutOfSuspense, type SuspenseOutDeps } from './shared/take-out-of-suspense';

/**
 * `payment.funds.returned.v1`: held money went back to the payer and leaves suspense, once (`funds:out:<money_key>`,
 * shared with an assignment: money leaves suspense one way). By a refund: out of the platform's holdings. By the
 * business itself: credited to it as a payment of its rail would be (pending under the settlement delay, less its
 * fee). Money whose coming in is not posted yet (events of one producer handled out of order) waits for it
 * (`NotYetError`: retried with backoff for the broker's whole retry window).
 */
export function postReturnedFunds(deps: SuspenseOutDeps, event: FundsReturned): Promise<{ posted: boolean }> {
  return takeOutOfSuspense(deps, event);
}
