import type { PayoutRequested } from '@gateway/contracts';
import type { MessageContext } from '@gateway/messaging';
import { counter } from '@gateway/observability';
import { requestPayout } from '../application/request-payout';
import type { PayoutDeps } from '../application/shared/settle-payout';
import { PayoutEntity } from '../persistence';

const conflictingRequests = counter(
  'pix_payout_requests_conflicting_total',
  'payout.requested.v1 naming a payout already stored with another amount or destination (ignored)',
);

/** Whether a request says what the stored payout says (its id names one amount to one destination, for good). */
function sameRequest(stored: PayoutEntity, event: PayoutRequested): boolean {
  return (
    stored.amountCentavos === event.amount_centavos &&
    stored.pixKey === event.destination.pix_key &&
    stored.holderDocument === event.destination.holder_document &&
    stored.businessId === event.business_id
  );
}

/**
 * `payout.requested.v1`: a payout id names one send, for good. A request for a payout stored already with another
 * amount or destination is not carried out (it would be another send under the same idEnvio): it is logged as an
 * error and counted, for an operator, and the stored payout goes on as it was.
 */
export function handlePayoutRequested(deps: PayoutDeps) {
  return async (event: PayoutRequested, context: MessageContext): Promise<void> => {
    const stored = await deps.dataSource.manager.findOneBy(PayoutEntity, { payoutId: event.payout_id });
    if (stored && !sameRequest(stored, event)) {
      conflictingRequests.inc();
      context.logger.error(
        { payout_id: event.payout_id, status: stored.status },
        'payout requested again with another amount or destination: ignored',
      );
      return;
    }
    await requestPayout(deps, event, context);
  };
}
