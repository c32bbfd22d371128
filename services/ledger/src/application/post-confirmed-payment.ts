import type { DataSource } from 'typeorm';
import type { Logger } from '@gateway/observability';
import { newPublicId, type PaymentEventPayload } from '@gateway/contracts';
import { isSettlementDue, paymentConfirmedPosting, type SettlementDelays } from '../domain/posting-rules';
import { journalExists, postPaymentJournal } from '../persistence';
import { recordJournalPosted } from './shared/ledger-metrics';

export interface PostConfirmedPaymentDeps {
  dataSource: DataSource;
  delays: SettlementDelays;
  logger: Logger;
  /** Called after a posting committed whose settlement is due already (the sweep's nudge: it settles at once). */
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
  if (posting.balanceTransaction === null || posting.settlement === null)
    throw new Error(`a payment posting has a balance transaction and a settlement: ${posting.causeKey}`);
  // One statement, its own transaction: nothing is held open across a round trip.
  const journalId = await postPaymentJournal(deps.dataSource, {
    ...posting,
    balanceTransaction: { ...posting.balanceTransaction, id: newPublicId('btx') },
    settlement: posting.settlement,
  });
  const posted = journalId !== null;
  if (posted) {
    recordJournalPosted('payment', new Date(event.occurred_at));
    // Only a settlement already due needs a sweep now; a later one is found by the sweep's interval.
    if (isSettlementDue(posting.settlement, new Date())) deps.afterPosting?.();
  } else if (!(await journalExists(deps.dataSource.manager, posting.causeKey)))
    deps.logger.warn(
      { payment_id: event.payment.payment_id, event_id: event.event_id },
      'payment already posted under another event: nothing posted',
    );
  return { posted };
}
