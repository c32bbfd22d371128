import type { AmountParts } from '@gateway/contracts';
import type { MessageContext, Transaction, UnitOfWork } from '@gateway/messaging';
import type { Logger } from '@gateway/observability';
import type { RailReport } from '../clients';
import {
  decideClosure,
  decideFunds,
  fundsRecord,
  type FundsReceived,
  type RailClosure,
} from '../domain/funds';
import { computeFee } from '../domain/fee';
import { isDueDatePayment } from '../domain/payment-record';
import { isOpen } from '../domain/payment-status';
import {
  hasReceivedFunds,
  isTransferRecorded,
  lockPayment,
  forgetUnreadableFunds,
  type PaymentEntity,
} from '../persistence';
import { recordLateFunds } from './keep-unapplied-transfer';
import { keepReceivedFunds } from './shared/received-funds-events';
import { transitionPayment } from './shared/payment-events';

// What a rail's outcome does to its payment, whichever rail and whoever learnt it: the rail's event, or the
// reconciliation asking the rail. Each is decided under the payment's row lock and counts once (funds per rail
// reference, a closure by the payment's open -> final transition), so learning it twice changes nothing.

/** What a rail reports of a payment: funds it received, and its window's closure if it closed unpaid. */
export type RailOutcome = Pick<RailReport, 'funds' | 'closure'>;

/** A rail's outcome reported by one of its events: applied once per message (inbox). */
export function recordRailOutcome(
  uow: UnitOfWork,
  outcome: RailOutcome,
  context: MessageContext,
): Promise<void> {
  return uow.once(context, (tx) => applyRailOutcome(tx, outcome, context.logger));
}

/** Applies a rail's outcome in `tx`: each of its funds, then its closure. */
export async function applyRailOutcome(tx: Transaction, outcome: RailOutcome, logger: Logger): Promise<void> {
  for (const funds of outcome.funds)
    await applyToLocked(tx, await lockPayment(tx.manager, funds.paymentId), funds, logger);
  if (outcome.closure) await applyRailClosure(tx, outcome.closure, logger);
}

/**
 * What funds do to their payment (`payment` as locked, null if unknown), decided by decideFunds: the full amount pays
 * it (any excess recorded), less is recorded as partial, after the end they are late funds.
 */
async function applyToLocked(
  tx: Transaction,
  payment: PaymentEntity | null,
  funds: FundsReceived,
  logger: Logger,
): Promise<void> {
  if (payment?.transactionId === funds.reference) return;
  // Measured against the payment's amount, funds on record already (a partial a closure reports again) must not pay
  // an amount changed since. A rail's own count is final: it pays even when the same transaction is on record under
  // another of its references (one transfer to a replaced request and to the current one).
  if (
    funds.against.kind === 'payment-amount' &&
    (await isTransferRecorded(tx.manager, funds.paymentId, funds.reference))
  )
    return;
  const decision = decideFunds(
    funds,
    payment && {
      isOpen: isOpen(payment.status),
      amountCentavos: payment.amountCentavos,
      dueDate: isDueDatePayment(payment),
    },
  );
  if (decision.kind === 'late' || !payment) {
    await recordLateFunds(tx, logger, fundsRecord(funds, 'late'), payment);
    return;
  }
  if (decision.kind === 'not-accepted') {
    if (await keepReceivedFunds(tx, fundsRecord(funds, decision.as), payment))
      logger.warn(
        {
          payment_id: payment.id,
          rail: funds.rail,
          received: funds.received.toString(),
          kept_as: decision.as,
        },
        'funds not accepted for a due-date payment: held',
      );
    return;
  }
  if (decision.kind === 'partial') {
    if (await keepReceivedFunds(tx, fundsRecord(funds, 'partial'), payment))
      logger.warn(
        { payment_id: payment.id, rail: funds.rail, received: funds.received.toString() },
        'partial funds received: payment stays open',
      );
    return;
  }
  const paid = await transitionPayment(tx, payment.id, {
    status: 'paid',
    transactionId: funds.reference,
    payer: funds.payer,
    ...(decision.parts ? { paid: duePaymentPaid(payment, funds.received, decision.parts) } : {}),
  });
  if (paid) Object.assign(payment, paid);
  await forgetUnreadableFunds(tx.manager, payment.id, funds.reference);
  if (decision.excess > 0n)
    await keepReceivedFunds(tx, fundsRecord(funds, 'excess', decision.excess), payment);
}

/**
 * A due-date payment paid `received` made of `parts`: its fee on what was paid (docs/adr/0048), under the terms it was
 * created with (its fee as created, when it has none: a payment made before they were kept).
 */
function duePaymentPaid(
  payment: PaymentEntity,
  received: bigint,
  parts: AmountParts,
): { parts: AmountParts; amountCentavos: number; feeCentavos: number } {
  const amountCentavos = Number(received);
  const feeCentavos =
    payment.feePercentBps == null || payment.feeFixedCentavos == null
      ? Math.min(payment.feeCentavos, amountCentavos)
      : computeFee(amountCentavos, {
          percentBps: payment.feePercentBps,
          fixedCentavos: payment.feeFixedCentavos,
        }).feeCentavos;
  return { parts, amountCentavos, feeCentavos };
}

/**
 * The rail's window closed unpaid (see decideClosure). Decided after the funds the closure lists: their own reports
 * may be handled before or after this, concurrently, and the outcome is the same.
 */
async function applyRailClosure(tx: Transaction, closure: RailClosure, logger: Logger): Promise<void> {
  const payment = await lockPayment(tx.manager, closure.paymentId);
  for (const funds of closure.funds) await applyToLocked(tx, payment, funds, logger);
  if (!payment || !isOpen(payment.status)) {
    logger.info({ payment_id: closure.paymentId }, 'rail closed for an ended payment');
    return;
  }
  const partial = await hasReceivedFunds(tx.manager, payment.id, 'partial');
  // A due-date payment's window that passed after a Pix it did not accept (held as partial, or as excess when it was
  // more) ends as that: never UNDERPAID for money that may have been more.
  const ending =
    closure.ending === 'window-passed' &&
    isDueDatePayment(payment) &&
    (partial || (await hasReceivedFunds(tx.manager, payment.id, 'excess')))
      ? 'amount-not-accepted'
      : closure.ending;
  await transitionPayment(tx, payment.id, decideClosure(ending, partial, closure.detail));
}
