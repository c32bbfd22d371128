import {
  pixFundsReturnRequested,
  PIX_REFUND_WINDOW_DAYS,
  pixRefundRequested,
  changePixChargeAmount,
  getPixChargeStatus,
  openPixCharge,
  simulatePixOutcome,
  submitPixMedDefence,
  type PixChargeClosed,
  type PixChargePaid,
  type PixReceivedOnCharge,
} from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import type { FundsReceived, RailClosure } from '../domain/funds';
import { paymentToOpen, railClosure, type Rail } from './rail';
import type { RailCaller } from './rail-caller';

/** A PIX on the payment's charge: measured against the payment's amount, which the charge asks as it is. */
export function pixFunds(
  paymentId: string,
  pix: PixReceivedOnCharge & Pick<PixChargePaid, 'payer' | 'amount_parts'>,
): FundsReceived {
  return {
    paymentId,
    rail: 'pix',
    reference: pix.end_to_end_id,
    received: BigInt(pix.amount_centavos),
    // A due-date charge's Pix says whether it pays it (its parts, or null); any other is measured against the amount.
    against:
      pix.amount_parts === undefined
        ? { kind: 'payment-amount' }
        : { kind: 'due-charge', parts: pix.amount_parts },
    payer: pix.payer ?? null,
  };
}

/** pix.charge.paid.v1 as funds received. */
export function pixChargePaidFunds(paid: PixChargePaid): FundsReceived {
  return pixFunds(paid.payment_id, paid);
}

/** pix.charge.closed.v1 (or the closure a status read reports) as a rail closure. */
export function pixChargeClosure(
  paymentId: string,
  closed: Pick<PixChargeClosed, 'reason' | 'detail' | 'cause' | 'received_pix'>,
): RailClosure {
  return railClosure(
    paymentId,
    closed.reason,
    closed.detail,
    closed.received_pix.map((pix) => pixFunds(paymentId, pix)),
    closed.cause ?? null,
  );
}

/**
 * PIX through the PIX adapter: an immediate charge (cob) whose BR Code the payer scans, or a charge with a due date
 * (cobv) when the payment has one.
 */
export function pixRail(caller: RailCaller, expiresInSeconds: number): Rail {
  return {
    method: 'pix',
    openStatus: 'processing',
    reshowsInstructions: true,
    refundRequested: pixRefundRequested,
    fundsReturnRequested: pixFundsReturnRequested,
    refundWindowDays: PIX_REFUND_WINDOW_DAYS,

    // Any create can be opened as a charge.
    checkCreate() {},

    async open(payment, context) {
      const opening = {
        ...paymentToOpen(payment),
        ...(payment.businessId ? { business_id: payment.businessId } : {}),
        expires_in_seconds: expiresInSeconds,
        // Only what there is: an opening without them is the message it always was.
        ...(payment.description ? { description: payment.description } : {}),
        ...(payment.debtor ? { debtor: payment.debtor } : {}),
        ...(payment.due ? { due: payment.due } : {}),
      };
      const { txid, custody, ...instructions } = await caller.call(openPixCharge, opening, context, 'open');
      // A due date asked for and none answered: a PIX adapter older than due dates ignored the field and opened an
      // immediate charge. Never a payment without the due date it was asked with: the create fails (retried once every
      // adapter knows due dates), and the cob it opened expires unanswered.
      if (payment.due && (!instructions.due_date || !instructions.payable_until))
        throw new CommandError(
          'SERVICE_UNAVAILABLE',
          'A cobrança com vencimento não pôde ser aberta. Tente novamente.',
        );
      return { externalId: txid, instructions, custody: custody ?? 'platform' };
    },

    async changeAmount(payment, amountCentavos, context) {
      const change = { payment_id: payment.id, amount_centavos: amountCentavos };
      const {
        txid,
        custody: _custody,
        ...instructions
      } = await caller.call(changePixChargeAmount, change, context, 'change-amount');
      // The charge keeps its txid: PIX paid before the change are reported by their own events.
      return { externalId: txid, instructions, superseded: null };
    },

    simulate: (paymentId, outcome, context) =>
      caller.call(simulatePixOutcome, { payment_id: paymentId, ...outcome }, context, 'simulate'),

    async report(paymentId) {
      const charge = await caller.ask(getPixChargeStatus, { payment_id: paymentId });
      return {
        state: charge.status,
        funds: charge.pix.map((pix) => pixFunds(paymentId, pix)),
        closure: charge.closure && pixChargeClosure(paymentId, charge.closure),
      };
    },

    async defendDispute(dispute, text, context) {
      const [endToEndId = '', devolucaoId = ''] = dispute.externalId.split('/');
      await caller.call(
        submitPixMedDefence,
        { payment_id: dispute.paymentId, end_to_end_id: endToEndId, devolucao_id: devolucaoId, text },
        context,
        'defence',
      );
    },
  };
}
