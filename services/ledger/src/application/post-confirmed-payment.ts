import type { DataSource } from 'typeorm';
import type { PaymentEventPayload } from '@gateway/contracts';
import type { Logger } from '@gateway/observability';
import { paymentConfirmedPosting, type SettlementDelays } from '../domain/posting-rules';
import { claimJournal, findSettlement, journalExists, lockPaymentPosting } from '../persistence';
import { recordJournalPosted } from './shared/ledger-metrics';
import { writeJournal } from './shared/write-journal';

export interface PostConfirmedPaymentDeps {
  dataSource: DataSource;
  delays: SettlementDelays;
  logger: Logger;
  /** Called after a posting committed (the settlement sweep's nudge: a payment due at once settles at once). */
  afterPosting?: () => void;
}

/**
 * `payment.confirmed.v1`: the payment's gross is held by the platform, its net owed to the business (pending until
 * the settlement delay is over) and its fee earned, in one journal keyed by the event id. A redelivery, or another
 * event for a payment already posted, writes nothing.
 */
export async function postConfirmedPayment(
  deps: PostConfirmedPaymentDeps,
  event: PaymentEventPayload,
): Promise<{ posted: boolean }> {
  const posting = paymentConfirmedPosting(event, deps.delays);
  const posted = await deps.dataSource.transaction(async (manager) => {
    await lockPaymentPosting(manager, event.payment.payment_id);
    if (await findSettlement(manager, event.payment.payment_id)) {
      if (!(await journalExists(manager, posting.causeKey)))
        deps.logger.warn(
          { payment_id: event.payment.payment_id, event_id: event.event_id },
          'payment already posted under another event: nothing posted',
        );
      return false;
    }
    const journalId = await claimJournal(manager, posting);
    if (journalId === null) return false;
    await writeJournal(manager, journalId, posting);
    return true;
  });
  if (posted) {
    recordJournalPosted('payment', new Date(event.occurred_at));
    deps.afterPosting?.();
  }
  return { posted };
}
