import type { PixInstructions } from '@gateway/contracts';
import type { Transaction } from '@gateway/messaging';
import { computeFee, type FeeTerms } from '../../domain/fee';
import { cycleDueDate, cyclePaymentId } from '../../domain/subscription';
import {
  insertPayment,
  lockOpenCycles,
  type PaymentEntity,
  type SubscriptionEntity,
} from '../../persistence';
import { emitPaymentEvent, transitionPayment } from './payment-events';

// A subscription's cycles are payments (docs/adr/0048, section 2): what the use cases that make or end them share.

/**
 * What a cycle charges: the fixed amount, or (the amount varying per cycle) what the merchant set for the next cycle,
 * or else the minimum the payer authorized.
 */
export function cycleAmountOf(
  subscription: Pick<
    SubscriptionEntity,
    'amountCentavos' | 'minimumAmountCentavos' | 'nextCycleAmountCentavos'
  >,
) {
  const amount =
    subscription.amountCentavos ?? subscription.nextCycleAmountCentavos ?? subscription.minimumAmountCentavos;
  if (amount === null) throw new Error('a subscription has an amount or a minimum amount');
  return amount;
}

/**
 * Inserts cycle `cycle`'s payment (`processing`, as the PIX rail opens its payments; its id derived from the pair) with
 * `payment.created`, in `tx`. Nothing (null) when that cycle's payment exists already: a retried open, or a replica
 * that opened it first (the pair is unique).
 */
export async function insertCyclePayment(
  tx: Transaction,
  subscription: SubscriptionEntity,
  cycle: number,
  opened: {
    externalId: string | null;
    instructions: PixInstructions | null;
    feeRule: FeeTerms;
    /** What its charge at the PSP asks (default: what the subscription says a cycle charges now). */
    amountCentavos?: number;
  },
): Promise<PaymentEntity | null> {
  const amountCentavos = opened.amountCentavos ?? cycleAmountOf(subscription);
  const now = new Date();
  const payment = await insertPayment(tx.manager, {
    id: cyclePaymentId(subscription.id, cycle),
    businessId: subscription.businessId,
    businessName: subscription.businessName,
    method: 'pix',
    status: 'processing',
    amountCentavos,
    feeCentavos: computeFee(amountCentavos, opened.feeRule).feeCentavos,
    token: null,
    metadata: subscription.metadata,
    description: subscription.description,
    customerId: subscription.customerId,
    transactionId: null,
    externalId: opened.externalId,
    failureCode: null,
    failureReason: null,
    instructions: opened.instructions,
    custody: 'platform',
    payerName: null,
    payerDocumentMasked: null,
    payerAddress: null,
    paidAt: null,
    refundReservedCentavos: 0,
    disputedCentavos: 0,
    refundedCentavos: 0,
    subscriptionId: subscription.id,
    cycle,
    createdAt: now,
    updatedAt: now,
    version: 1,
  });
  if (payment) await emitPaymentEvent(tx, 'created', payment);
  return payment;
}

/**
 * Cancels, in `tx`, the subscription's open cycles not yet due on `today` (`payment.cancelled`: the PIX adapter removes
 * their `cobr`); a cycle due already is the PSP's to debit or fail, and one it debited first is paid, and stays so, as
 * is one in `keptAtThePsp` (the PSP did not cancel it: its outcome there stands and arrives as usual).
 * Journey 3's first payment is cancelled whatever its due date while still open: it is a plain PIX charge the payer
 * pays by its QR code (never debited by the PSP), and a subscription ended is not to be paid (its `cob` removed); one
 * paid first stays paid.
 */
export async function cancelCyclesNotYetDue(
  tx: Transaction,
  subscription: SubscriptionEntity,
  today: string,
  keptAtThePsp: ReadonlySet<string> = new Set(),
): Promise<void> {
  for (const payment of await lockOpenCycles(tx.manager, subscription.id)) {
    const firstPayment = payment.id === subscription.firstPaymentId;
    if (!firstPayment && cycleDueDate(subscription.startDate, subscription.interval, payment.cycle!) <= today)
      continue;
    if (keptAtThePsp.has(payment.id)) continue;
    await transitionPayment(tx, payment.id, { status: 'cancelled' });
  }
}
