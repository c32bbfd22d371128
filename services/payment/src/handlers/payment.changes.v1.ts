import type { DataSource } from 'typeorm';
import type { PaymentChangesPage, ReadPaymentChanges } from '@gateway/contracts';
import { toView } from '../domain/payment-record';
import { readPaymentChanges } from '../persistence';

/**
 * The payment change feed the gateway keeps its payment copies complete by (docs/adr/0043-payment-lists-from-the-change-feed.md):
 * every payment written after the cursor, in write order, with its instructions.
 */
export function handleReadPaymentChanges(dataSource: DataSource) {
  return async (query: ReadPaymentChanges): Promise<PaymentChangesPage> => {
    const page = await readPaymentChanges(
      dataSource.manager,
      { xid: query.after.xid, paymentId: query.after.payment_id },
      query.limit,
    );
    return {
      payments: page.payments.map((payment) => toView(payment)),
      last: page.last && { xid: page.last.xid, payment_id: page.last.paymentId },
      settled_below: page.settledBelow,
      has_more: page.hasMore,
    };
  };
}
