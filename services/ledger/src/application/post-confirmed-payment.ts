import type { DataSource } from 'typeorm';
import type { Logger } from '@gateway/observability';
import { newPublicId, type PaymentEventPayload } from '@gateway/contracts';
import { isSettlementDue, paymentConfirmedPosting, type SettlementDelays } from '../domain/posting-rules';
import { journalExists, postPaymentJournal, type PaymentJournal } from '../persistence';
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
  const journal = paymentJournalOf(event, deps.delays);
  // One statement, its own transaction: nothing is held open across a round trip.
  const posted = (await postPaymentJournal(deps.dataSource, journal)) !== null;
  await afterPaymentPosting(deps, event, journal, posted);
  return { posted };
}

/** What a paid payment's event posts: its journal, its balance transaction (a new id) and its settlement. */
export function paymentJournalOf(event: PaymentEventPayload, delays: SettlementDelays): PaymentJournal {
  const posting = paymentConfirmedPosting(event, delays);
  if (posting.balanceTransaction === null || posting.settlement === null)
    throw new Error(`a payment posting has a balance transaction and a settlement: ${posting.causeKey}`);
  return {
    ...posting,
    balanceTransaction: { ...posting.balanceTransaction, id: newPublicId('btx') },
    settlement: posting.settlement,
  };
}

/**
 * After a payment's posting committed (or found it posted before): counted, the sweep nudged when its settlement is
 * due already; a payment posted under another event is logged.
 */
export async function afterPaymentPosting(
  deps: PostConfirmedPaymentDeps,
  event: PaymentEventPayload,
  journal: PaymentJournal,
  posted: boolean,
): Promise<void> {
  if (posted) {
    recordJournalPosted('payment', new Date(event.occurred_at));
    // Only a settlement already due needs a sweep now; a later one is found by the sweep's interval.
    if (isSettlementDue(journal.settlement, new Date())) deps.afterPosting?.();
  } else if (!(await journalExists(deps.dataSource.manager, journal.causeKey)))
    deps.logger.warn(
      { payment_id: event.payment.payment_id, event_id: event.event_id },
      'payment already posted under another event: nothing posted',
    );
}
