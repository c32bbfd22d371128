import type { DataSource } from 'typeorm';
import type { PaymentEventPayload } from '@gateway/contracts';
import { directPaymentPosting } from '../domain/posting-rules';
import { recordJournalPosted } from './shared/ledger-metrics';
import { claimAndWrite } from './shared/write-posting';

/**
 * `payment.confirmed.v1` of a payment paid into the business's own PSP account (`custody: direct`): only the fee the
 * business owes the platform is booked (docs/money-model.md#custodial-and-direct-models), once per payment whichever
 * event reports it.
 */
export async function postDirectPayment(
  dataSource: DataSource,
  event: PaymentEventPayload,
): Promise<{ posted: boolean }> {
  const posting = directPaymentPosting(event);
  const posted = await dataSource.transaction(
    async (manager) => (await claimAndWrite(manager, posting)) !== null,
  );
  if (posted) recordJournalPosted('payment', new Date(event.occurred_at));
  return { posted };
}
