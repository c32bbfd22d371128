import type { PixPayoutSettled } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import type { Logger } from '@gateway/observability';
import { postSettledPayout } from '../application/post-settled-payout';

/**
 * Posts a payout's PSP outcome, and reports what posts nothing: an outcome for a payout the ledger does not know is
 * logged (`warn`), the other outcome for a payout already final as an error (the books and the PSP disagree about
 * money that moved; it is counted and alerted on too), and either is acknowledged (retrying would change nothing);
 * the same outcome again is a redelivery.
 */
export function handlePixPayoutSettled(uow: UnitOfWork, logger: Logger) {
  return async (settled: PixPayoutSettled, context: MessageContext): Promise<void> => {
    const done = await postSettledPayout(uow, settled, context);
    const about = { payout_id: settled.payout_id, outcome: settled.outcome, message_id: context.envelope.id };
    if (done.result === 'unknown_payout')
      logger.warn(about, 'payout outcome for a payout the ledger does not know: nothing posted');
    else if (done.result === 'contradicts')
      logger.error(
        { ...about, status: done.status },
        'payout outcome contradicts its final status: nothing posted',
      );
  };
}
