import type { DataSource } from 'typeorm';
import type { CreateRefund, RefundRecord } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import type { LedgerReservations, Rails } from '../clients';
import { paidCentavosOf } from '../domain/payment-record';
import { completesRefunds, decideRefund, refundRequest, toRefundRecord } from '../domain/refund';
import {
  findPayment,
  giveUpStaleIntents,
  insertRefund,
  lockHeldExcess,
  lockLiveRefundIntent,
  lockPayment,
  lockReservingIntent,
  markIntentOpened,
  recordRefundIntent,
  refundExistsOrGiveUp,
  reservingCentavos,
  type RefundIntent,
} from '../persistence';
import { recordRefund } from './shared/payment-metrics';

export interface OpenRefundDeps {
  dataSource: DataSource;
  uow: UnitOfWork;
  rails: Rails;
  ledger: LedgerReservations;
  /**
   * How long an intent may stay `reserving` before the next refund of its payment gives it up (its command stopped
   * between recording it and opening the refund): longer than the ledger's call can take.
   */
  intentGivesUpAfterMs: number;
}

const paymentNotFound = () => new CommandError('NOT_FOUND', 'Pagamento não encontrado.');

const idGivenUp = () =>
  new CommandError('SERVICE_UNAVAILABLE', 'O reembolso não pôde ser aberto a tempo. Tente novamente.');

/**
 * Opens a refund of the business's payment, its money reserved first (docs/refunds.md#the-balance-first), with no
 * database transaction open while the ledger is asked. Three steps:
 * 1. Under the payment's lock, in a short transaction: the payment's own rules are checked against its refunds and
 *    the intents of refunds of it still being reserved, so racing requests are decided one after the other (a refund
 *    they refuse asks the ledger nothing and holds no money); the command's intent (refund id, amount) is recorded,
 *    the same on every delivery of the command until it is given up.
 * 2. No transaction open: the ledger reserves the amount under the refund's id (INSUFFICIENT_BALANCE when the
 *    business's available + pending does not cover it).
 * 3. Under the payment's lock again, once per command (inbox): an intent still `reserving` becomes the refund, and
 *    the rail is asked to carry it out by an event that commits with it. An intent given up meanwhile (by the ledger's
 *    sweep, or as stale by a later refund of the payment) is never opened.
 * Whatever fails once the ledger was asked (its answer lost, a refusal by the payment's rules in step 3, a failed
 * commit) gives the intent up and the reservation back (or leaves it to the ledger's sweep); the ledger refusing gives
 * the intent up with nothing to release. The refund that completes the payment's refunds also carries the
 * overpayment's excess if it is still held (marked returned by it in the same transaction; excess already returned by
 * hand stays out). A redelivery answers the refund its command opened, never a second one.
 */
export async function openRefund(
  deps: OpenRefundDeps,
  command: CreateRefund,
  context: MessageContext,
): Promise<RefundRecord> {
  const stored = await deps.uow.storedResult<RefundRecord>(context);
  if (stored) return stored.value;
  const intent = await recordIntent(deps, command, context);
  if (intent.status === 'opened') {
    // Another delivery of the command opened it meanwhile: its answer committed with it.
    const answered = await deps.uow.storedResult<RefundRecord>(context);
    if (!answered) throw idGivenUp();
    return answered.value;
  }
  const { refundId, amountCentavos } = intent;
  // Money paid into the business's own PSP account was never the platform's: its devolução leaves that account, and
  // nothing of the business's balance with the platform is reserved for it.
  const direct = (await findPayment(deps.dataSource.manager, command.payment_id))?.custody === 'direct';
  let outcome: 'reserved' | 'released' = 'reserved';
  if (!direct)
    try {
      outcome = await deps.ledger.reserve(
        {
          reservation_id: refundId,
          business_id: command.business_id,
          payment_id: command.payment_id,
          amount_centavos: amountCentavos,
        },
        context,
      );
    } catch (err) {
      // The ledger refusing reserved nothing: the intent is given up, nothing to release. Any other failure (a lost
      // answer, a timeout) may leave a reservation.
      if (err instanceof CommandError && err.code === 'INSUFFICIENT_BALANCE')
        await giveUp(deps, command.payment_id, refundId, context);
      else await giveBack(deps, command.payment_id, refundId, context);
      throw err;
    }
  try {
    // Released: the ledger's sweep gave the id up already, so the intent is no longer reserving either.
    if (outcome === 'released') throw idGivenUp();
    return await deps.uow.once(context, async (tx) => {
      const payment = await lockPayment(tx.manager, command.payment_id);
      if (!payment || payment.businessId !== command.business_id) throw paymentNotFound();
      if (!(await lockReservingIntent(tx.manager, refundId))) throw idGivenUp();
      const rail = deps.rails.of(payment.method);
      // Decided again with what changed since step 1 (its own intent left out): normally the same answer.
      const others = await reservingCentavos(tx.manager, payment.id, refundId);
      const decision = decideRefund(
        { ...payment, refundReservedCentavos: payment.refundReservedCentavos + others },
        amountCentavos,
        rail.refundWindowDays,
        new Date(),
      );
      if (!decision.ok) throw new CommandError(decision.code, decision.message);
      const excess = completesRefunds(payment, amountCentavos)
        ? await lockHeldExcess(tx.manager, payment.id)
        : null;
      const refund = await insertRefund(tx.manager, {
        id: refundId,
        paymentId: payment.id,
        businessId: payment.businessId,
        method: payment.method,
        amountCentavos,
        reason: command.reason ?? null,
        returnedFundsId: excess?.funds_id ?? null,
      });
      await markIntentOpened(tx.manager, refundId);
      await tx.emit(rail.refundRequested, refundRequest(refund, paidCentavosOf(payment), excess));
      tx.afterCommit(() => recordRefund(refund.method, 'requested'));
      return toRefundRecord(refund);
    });
  } catch (err) {
    await giveBack(deps, command.payment_id, refundId, context);
    throw err;
  }
}

/**
 * Step 1: decides the refund against the payment (its refunds and the other intents still being reserved), under its
 * lock, and records the command's intent, or finds the one an earlier delivery recorded. Stale intents of the payment
 * are given up first. Refuses with the payment's rules, having recorded nothing.
 */
async function recordIntent(
  deps: OpenRefundDeps,
  command: CreateRefund,
  context: MessageContext,
): Promise<RefundIntent> {
  return deps.dataSource.transaction(async (manager) => {
    const payment = await lockPayment(manager, command.payment_id);
    if (!payment || payment.businessId !== command.business_id) throw paymentNotFound();
    await giveUpStaleIntents(manager, payment.id, deps.intentGivesUpAfterMs);
    const known = await lockLiveRefundIntent(manager, context.envelope.id);
    // Opened by another delivery of the command, which answers it (inbox).
    if (known?.status === 'opened') return known;
    const others = await reservingCentavos(manager, payment.id, known?.refundId ?? null);
    const decision = decideRefund(
      { ...payment, refundReservedCentavos: payment.refundReservedCentavos + others },
      known ? known.amountCentavos : (command.amount_centavos ?? null),
      deps.rails.of(payment.method).refundWindowDays,
      new Date(),
    );
    if (!decision.ok) throw new CommandError(decision.code, decision.message);
    if (known) return known;
    const refundId = await recordRefundIntent(manager, {
      messageId: context.envelope.id,
      paymentId: payment.id,
      amountCentavos: decision.amountCentavos,
    });
    return { refundId, status: 'reserving', amountCentavos: decision.amountCentavos };
  });
}

/** The ledger refused to reserve: the intent is given up (unless its refund exists: a concurrent delivery). */
async function giveUp(
  deps: OpenRefundDeps,
  paymentId: string,
  refundId: string,
  context: MessageContext,
): Promise<void> {
  try {
    await deps.dataSource.transaction(async (manager) => {
      await lockPayment(manager, paymentId);
      return refundExistsOrGiveUp(manager, refundId);
    });
  } catch (err) {
    context.logger.warn({ err, refund_id: refundId }, 'refund intent not given up: a later refund will');
  }
}

/**
 * The refund's transaction failed once the ledger was asked to reserve: its id is given up (unless the refund exists
 * after all: a commit whose answer was lost, or a concurrent delivery of the same command), so it can never become a
 * refund and the next try of the command gets a new one, and the reservation, if any, goes back. A database or ledger
 * that does not answer leaves it to the ledger's sweep.
 */
async function giveBack(
  deps: OpenRefundDeps,
  paymentId: string,
  refundId: string,
  context: MessageContext,
): Promise<void> {
  try {
    const opened = await deps.dataSource.transaction(async (manager) => {
      await lockPayment(manager, paymentId);
      return refundExistsOrGiveUp(manager, refundId);
    });
    if (!opened) await deps.ledger.release(refundId, context);
  } catch (err) {
    context.logger.warn({ err, refund_id: refundId }, 'reservation not released: the ledger sweep will');
  }
}
