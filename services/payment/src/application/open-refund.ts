import type { DataSource } from 'typeorm';
import type { CreateRefund, RefundRecord } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import type { LedgerReservations, Rails } from '../clients';
import { completesRefunds, decideRefund, refundRequest, toRefundRecord } from '../domain/refund';
import {
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
 * Opens a refund of the business's payment, its money reserved first (docs/refunds.md#the-balance-first). Under the
 * payment's lock, so racing requests are decided one after the other against what the earlier ones reserved: the
 * payment's own rules are checked (a refund they refuse asks the ledger nothing), then the ledger reserves the amount
 * under the refund's id, the same on every delivery of the command (INSUFFICIENT_BALANCE when the business's available
 * + pending does not cover it), and only then is the refund opened; the rail is asked to carry it out by an event that
 * commits with it. The lock is held over the ledger's round trip, not a rail's: a refund of the same payment waits
 * for it, never for a PSP or the chain. A transaction that fails once the ledger was asked (its answer lost, the
 * commit failed) gives the id up and the reservation back (or leaves it to the ledger's sweep). The refund that
 * completes the payment's refunds also carries the overpayment's excess if it is still held (marked returned by it in
 * the same transaction; excess already returned by hand stays out). Once per command (inbox): a redelivery answers the
 * refund it opened, never a second one.
 */
export async function openRefund(
  deps: OpenRefundDeps,
  command: CreateRefund,
  context: MessageContext,
): Promise<RefundRecord> {
  const stored = await deps.uow.storedResult<RefundRecord>(context);
  if (stored) return stored.value;
  const refundId = await reserveRefundId(deps.dataSource.manager, context.envelope.id);
  // Set once the ledger was asked: from then on it may hold a reservation under the id, even when its answer was lost.
  let askedLedger = false;
  try {
    return await deps.uow.once(context, async (tx) => {
      const payment = await lockPayment(tx.manager, command.payment_id);
      if (!payment || payment.businessId !== command.business_id) throw paymentNotFound();
      const rail = deps.rails.of(payment.method);
      const decision = decideRefund(
        payment,
        command.amount_centavos ?? null,
        rail.refundWindowDays,
        new Date(),
      );
      if (!decision.ok) throw new CommandError(decision.code, decision.message);
      // Given up (a delivery that came after the ledger's sweep released its reservation): the next try gets a new id.
      if (!(await lockLiveRefundId(tx.manager, refundId))) throw idGivenUp();
      askedLedger = true;
      const outcome = await deps.ledger.reserve(
        {
          reservation_id: refundId,
          business_id: payment.businessId,
          payment_id: payment.id,
          amount_centavos: decision.amountCentavos,
        },
        context,
      );
      if (outcome === 'released') throw idGivenUp();
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
    // The ledger refusing reserved nothing; any other failure may leave a reservation (a lost answer, a failed commit).
    const refused = err instanceof CommandError && err.code === 'INSUFFICIENT_BALANCE';
    if (askedLedger && !refused) await giveBack(deps, command.payment_id, refundId, context);
    throw err;
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
