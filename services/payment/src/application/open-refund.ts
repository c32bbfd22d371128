import type { DataSource } from 'typeorm';
import type { CreateRefund, RefundRecord } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import type { LedgerReservations, Rails } from '../clients';
import { completesRefunds, decideRefund, refundRequest, toRefundRecord } from '../domain/refund';
import {
  findPayment,
  insertRefund,
  lockHeldExcess,
  lockLiveRefundId,
  lockPayment,
  refundExistsOrGiveUp,
  reserveRefundId,
} from '../persistence';
import { recordRefund } from './shared/payment-metrics';

export interface OpenRefundDeps {
  dataSource: DataSource;
  uow: UnitOfWork;
  rails: Rails;
  ledger: LedgerReservations;
}

const paymentNotFound = () => new CommandError('NOT_FOUND', 'Pagamento não encontrado.');

const idGivenUp = () =>
  new CommandError('SERVICE_UNAVAILABLE', 'O reembolso não pôde ser aberto a tempo. Tente novamente.');

/**
 * Opens a refund of the business's payment, its money reserved first (docs/refunds.md#the-balance-first): the
 * payment's own rules are checked, the refund gets its id (the same on every delivery of the command), the ledger
 * reserves the amount under that id (INSUFFICIENT_BALANCE when the business's available + pending does not cover it),
 * and only then is the refund opened, under the payment's lock, so racing requests are decided one after the other
 * against what the earlier ones reserved; the rail is asked to carry it out by an event that commits with it. A refund
 * the payment's rules refuse once reserved (a racing refund took the rest) gives its id up and its reservation back.
 * The refund that completes the payment's refunds also carries the overpayment's excess if it is still held (marked
 * returned by it in the same transaction; excess already returned by hand stays out). Once per command (inbox): a
 * redelivery answers the refund it opened, never a second one.
 */
export async function openRefund(
  deps: OpenRefundDeps,
  command: CreateRefund,
  context: MessageContext,
): Promise<RefundRecord> {
  const stored = await deps.uow.storedResult<RefundRecord>(context);
  if (stored) return stored.value;
  // Decided before anything is reserved: a refund the payment's own rules refuse reserves nothing.
  const seen = await findPayment(deps.dataSource.manager, command.payment_id, command.business_id);
  if (!seen) throw paymentNotFound();
  const rail = deps.rails.of(seen.method);
  const asked = decideRefund(seen, command.amount_centavos ?? null, rail.refundWindowDays, new Date());
  if (!asked.ok) throw new CommandError(asked.code, asked.message);
  const refundId = await reserveRefundId(deps.dataSource.manager, context.envelope.id);
  const reserved = await deps.ledger.reserve(
    {
      reservation_id: refundId,
      business_id: seen.businessId,
      payment_id: seen.id,
      amount_centavos: asked.amountCentavos,
    },
    context,
  );
  // Released already: the ledger's sweep found no refund under the id, which is given up; the next try gets a new one.
  if (reserved === 'released') throw idGivenUp();
  try {
    return await deps.uow.once(context, async (tx) => {
      const payment = await lockPayment(tx.manager, command.payment_id);
      if (!payment || payment.businessId !== command.business_id) throw paymentNotFound();
      // Given up meanwhile (this delivery took longer than the ledger waits): its reservation is released.
      if (!(await lockLiveRefundId(tx.manager, refundId))) throw idGivenUp();
      // The amount reserved, decided again against what racing refunds have reserved since.
      const decision = decideRefund(payment, asked.amountCentavos, rail.refundWindowDays, new Date());
      if (!decision.ok) throw new CommandError(decision.code, decision.message);
      const excess = completesRefunds(payment, decision.amountCentavos)
        ? await lockHeldExcess(tx.manager, payment.id)
        : null;
      const refund = await insertRefund(tx.manager, {
        id: refundId,
        paymentId: payment.id,
        businessId: payment.businessId,
        method: payment.method,
        amountCentavos: decision.amountCentavos,
        reason: command.reason ?? null,
        returnedFundsId: excess?.funds_id ?? null,
      });
      await tx.emit(rail.refundRequested, refundRequest(refund, payment.amountCentavos, excess));
      tx.afterCommit(() => recordRefund(refund.method, 'requested'));
      return toRefundRecord(refund);
    });
  } catch (err) {
    if (err instanceof CommandError && err.code !== 'SERVICE_UNAVAILABLE')
      await giveBack(deps, seen.id, refundId, context);
    throw err;
  }
}

/**
 * The refund was refused after its money was reserved: its id is given up (unless a concurrent delivery of the same
 * command opened it), so it can never become a refund, and the reservation goes back. A ledger that does not answer
 * leaves it to the ledger's sweep, which finds the id given up.
 */
async function giveBack(
  deps: OpenRefundDeps,
  paymentId: string,
  refundId: string,
  context: MessageContext,
): Promise<void> {
  const opened = await deps.dataSource.transaction(async (manager) => {
    await lockPayment(manager, paymentId);
    return refundExistsOrGiveUp(manager, refundId);
  });
  if (opened) return;
  try {
    await deps.ledger.release(refundId, context);
  } catch (err) {
    context.logger.warn({ err, refund_id: refundId }, 'reservation not released: the ledger sweep will');
  }
}
