import {
  PIX_REFUND_WINDOW_DAYS,
  pixRefundRequested,
  changePixChargeAmount,
  getPixChargeStatus,
  openPixCharge,
  simulatePixOutcome,
  type PixChargeClosed,
  type PixChargePaid,
  type PixReceivedOnCharge,
} from '@gateway/contracts';
import type { MessageContext } from '@gateway/messaging';
import type { FundsReceived, RailClosure } from '../domain/funds';
import {
  railClosure,
  type Rail,
  type RailAmountChange,
  type RailOpening,
  type RailPayment,
  type RailReport,
  type SimulatedOutcome,
} from './rail';
import type { RailCaller } from './rail-caller';

/** A PIX on the payment's charge: measured against the payment's amount, which the charge asks as it is. */
export function pixFunds(paymentId: string, pix: PixReceivedOnCharge): FundsReceived {
  return {
    paymentId,
    rail: 'pix',
    reference: pix.end_to_end_id,
    received: BigInt(pix.amount_centavos),
    against: { kind: 'payment-amount' },
  };
}

/** pix.charge.paid.v1 as funds received. */
export function pixChargePaidFunds(paid: PixChargePaid): FundsReceived {
  return pixFunds(paid.payment_id, paid);
}

/** pix.charge.closed.v1 (or the closure a status read reports) as a rail closure. */
export function pixChargeClosure(
  paymentId: string,
  closed: Pick<PixChargeClosed, 'reason' | 'detail' | 'received_pix'>,
): RailClosure {
  return railClosure(
    paymentId,
    closed.reason,
    closed.detail,
    closed.received_pix.map((pix) => pixFunds(paymentId, pix)),
  );
}

/** PIX through the PIX adapter: an immediate charge (cob) whose BR Code the payer scans. */
export class PixRail implements Rail {
  readonly method = 'pix' as const;
  readonly openStatus = 'processing' as const;
  readonly reshowsInstructions = true;
  readonly refundRequested = pixRefundRequested;
  readonly refundWindowDays = PIX_REFUND_WINDOW_DAYS;

  constructor(
    private readonly caller: RailCaller,
    private readonly expiresInSeconds: number,
  ) {}

  checkCreate(): void {}

  async open(payment: RailPayment, context: MessageContext): Promise<RailOpening> {
    const { txid, ...instructions } = await this.caller.call(
      openPixCharge,
      {
        payment_id: payment.id,
        business_name: payment.businessName,
        amount_centavos: payment.amountCentavos,
        expires_in_seconds: this.expiresInSeconds,
      },
      context,
      'open',
    );
    return { externalId: txid, instructions };
  }

  async changeAmount(
    payment: RailPayment,
    amountCentavos: number,
    context: MessageContext,
  ): Promise<RailAmountChange> {
    const { txid, ...instructions } = await this.caller.call(
      changePixChargeAmount,
      { payment_id: payment.id, amount_centavos: amountCentavos },
      context,
      'change-amount',
    );
    // The charge keeps its txid: PIX paid before the change are reported by their own events.
    return { externalId: txid, instructions, superseded: null };
  }

  simulate(
    paymentId: string,
    outcome: SimulatedOutcome,
    context: MessageContext,
  ): Promise<{ accepted: true }> {
    return this.caller.call(simulatePixOutcome, { payment_id: paymentId, ...outcome }, context, 'simulate');
  }

  async report(paymentId: string): Promise<RailReport> {
    const charge = await this.caller.ask(getPixChargeStatus, { payment_id: paymentId });
    return {
      state: charge.status,
      funds: charge.pix.map((pix) => pixFunds(paymentId, pix)),
      closure: charge.closure && pixChargeClosure(paymentId, charge.closure),
    };
  }
}
