import { pageRequest, type ListPayments, type Page, type PaymentRecord } from '@gateway/contracts';
import { counter } from '@gateway/observability';
import { anyPaymentCopyMarked, listPaymentCopies } from '../persistence';
import { copyAnswers, type PaymentCopies } from './shared/payment-copies';

const lists = counter(
  'gateway_payment_lists_total',
  'Pages of payment lists, by where they were answered from: the gateway copies, or the payment service (the change feed not read to its end within the maximum age, a cursor the copies do not hold, a copy on the page that cannot answer)',
  ['answered_from'],
);
lists.inc({ answered_from: 'copy' }, 0);
lists.inc({ answered_from: 'payment_service' }, 0);

/**
 * Answers a page of the business's payments from the gateway's copies (docs/adr/0043-payment-lists-from-the-change-feed.md),
 * in the payment service's order and with its filters, and from the payment service (`listFromOwner`) when the copies
 * cannot: the change feed was not read to its end within `maxAgeMs` (a copy might be missing or old), the cursor is
 * no copy of the business's (a payment made a moment ago elsewhere, or none: the payment service refuses it), the
 * gateway's database cannot be read, or a copy on the page cannot answer for its payment (a change or refund in
 * flight, an open payment while the events lag). A status moves, so a list filtered by status is answered from the
 * copies only while the events keep up and no change of any of the business's payments is in flight: a payment the
 * filter should now take in (or leave out) may be on no page the copies would show.
 */
export async function readPaymentList(
  copies: PaymentCopies,
  query: ListPayments,
  listFromOwner: () => Promise<Page<PaymentRecord>>,
): Promise<Page<PaymentRecord>> {
  const now = Date.now();
  // A subscription's cycles are listed by the payment service: the copies keep no subscription to filter by.
  if (
    query.subscription_id === undefined &&
    copies.changeFeed.ageMs(now) <= copies.maxAgeMs &&
    (await statusFilterAnswerable(copies, query, now))
  ) {
    const page = await listPaymentCopies(
      copies.dataSource.manager,
      query.business_id,
      {
        status: query.status,
        method: query.method,
        createdGte: query.created_gte,
        createdLt: query.created_lt,
      },
      pageRequest(query),
    ).catch(() => undefined);
    // Each copy is as old as the feed's read at most (ageMs 0: its own age does not count here).
    if (page && page.rows.every((row) => copyAnswers(copies, { ...row, ageMs: 0 }, now))) {
      lists.inc({ answered_from: 'copy' });
      return { data: page.rows.map((row) => row.record), has_more: page.hasMore };
    }
  }
  lists.inc({ answered_from: 'payment_service' });
  return listFromOwner();
}

async function statusFilterAnswerable(
  copies: PaymentCopies,
  query: ListPayments,
  now: number,
): Promise<boolean> {
  if (query.status === undefined) return true;
  if (!copies.feed.keepingUp(now)) return false;
  return !(await anyPaymentCopyMarked(copies.dataSource.manager, query.business_id).catch(() => true));
}
