import type {
  FundsReturnRequested,
  MessageDefinition,
  RefundRequested,
  CreatePayment,
  CryptoInstructions,
  PaymentCustody,
  PaymentMethod,
  PaymentStatus,
  PixChargeClosureCause,
  PixInstructions,
  SimulatePayment,
} from '@gateway/contracts';
import type { MessageContext } from '@gateway/messaging';
import type { FundsReceived, RailClosure } from '../domain/funds';

/**
 * A rail's report that its window closed unpaid, as the payment decides it: only whether the window passed or the
 * rail refused counts (the rail's own `underpaid` is decided again from the funds, in one place for every rail).
 */
export function railClosure(
  paymentId: string,
  reason: 'expired' | 'underpaid' | 'failed',
  detail: string | null,
  funds: FundsReceived[],
  cause: PixChargeClosureCause | null = null,
): RailClosure {
  const ending =
    reason !== 'failed'
      ? 'window-passed'
      : cause === 'amount_not_accepted'
        ? 'amount-not-accepted'
        : cause === 'debit_failed'
          ? 'debit-failed'
          : cause === 'cycle_cancelled'
            ? 'cycle-cancelled'
            : 'refused';
  return { paymentId, ending, detail, funds };
}

/** What the payer is shown to pay on a rail. */
export type RailInstructions = PixInstructions | CryptoInstructions;

/** The payment a rail opens or changes (the entity has this shape). */
export interface RailPayment {
  id: string;
  /** Whose payment it is: a rail that opens it at the business's own account (a PIX PSP account) says so. */
  businessId?: string;
  businessName: string;
  amountCentavos: number;
  token: CreatePayment['token'];
  /** What the payment is for; a rail that can show it to the payer does (a PIX charge's `solicitacaoPagador`). */
  description?: string | null;
  /** Who a PIX charge is addressed to, when its customer can be named (only when it is opened). */
  debtor?: CreatePayment['debtor'];
  /** A PIX charge with a due date: its rules (only when it is opened). */
  due?: CreatePayment['due'];
}

/** What every rail is told of a payment it opens; each rail adds its own terms (a PIX's expiry, a crypto token). */
export function paymentToOpen(payment: RailPayment): {
  payment_id: string;
  business_name: string;
  amount_centavos: number;
} {
  return {
    payment_id: payment.id,
    business_name: payment.businessName,
    amount_centavos: payment.amountCentavos,
  };
}

/** The outcome a sandbox simulation asks the rail to make happen. */
export type SimulatedOutcome = Pick<SimulatePayment, 'outcome' | 'amount_centavos' | 'paid_on'>;

/** What a rail made for a payment: its reference at the rail and the instructions to show. */
export interface RailOpening {
  externalId: string;
  instructions: RailInstructions;
  /** Who holds the money paid (a PIX charge at the business's own PSP account: `direct`); absent: the platform. */
  custody?: PaymentCustody;
}

/** What a rail made for a new amount; what the instructions it replaced had collected stays the payment's. */
export interface RailAmountChange extends RailOpening {
  superseded: FundsReceived | null;
}

/** What a rail knows of a payment now, in the shapes its events report. */
export interface RailReport {
  /** The rail's own word for the state, for metrics. */
  state: string;
  funds: FundsReceived[];
  closure: RailClosure | null;
}

/**
 * How the payment service works a payment on one rail (PIX through the PIX adapter, stablecoins through the Solana
 * watcher). Each call is made outside any transaction; `context` is the command being handled, whose id makes the
 * rail call's id (a retry reaches the rail as the same command) and whose deadline bounds it.
 */
export interface Rail {
  readonly method: PaymentMethod;
  /** The status a payment opened on this rail starts in. */
  readonly openStatus: Extract<PaymentStatus, 'pending' | 'processing'>;
  /** Whether every change of the payment shows its instructions again (a PIX code), not only a new amount's. */
  readonly reshowsInstructions: boolean;
  /** The event that asks this rail to carry a refund out (emitted with the refund, from the outbox). */
  readonly refundRequested: MessageDefinition<RefundRequested>;
  /** The event that asks this rail to send held received funds back to their payer (the operator's return). */
  readonly fundsReturnRequested: MessageDefinition<FundsReturnRequested>;
  /** How many days after payment the rail still refunds (PIX: the BCB's 90); null: no limit. */
  readonly refundWindowDays: number | null;
  /** Refuses at once a create this rail cannot open (crypto without a token). */
  checkCreate(command: CreatePayment): void;
  open(payment: RailPayment, context: MessageContext): Promise<RailOpening>;
  changeAmount(
    payment: RailPayment,
    amountCentavos: number,
    context: MessageContext,
  ): Promise<RailAmountChange>;
  /** Sandbox: makes the outcome happen for real at the rail. */
  simulate(
    paymentId: string,
    outcome: SimulatedOutcome,
    context: MessageContext,
  ): Promise<{ accepted: true }>;
  /** Asks the rail (reconciliation). */
  report(paymentId: string): Promise<RailReport>;
  /**
   * Sends the business's defence of a dispute to where the dispute was raised (the PSP holding a MED), refused
   * DEFENCE_NOT_SUPPORTED where there is nowhere to send it.
   */
  defendDispute(dispute: DisputeToDefend, text: string, context: MessageContext): Promise<void>;
}

/** The dispute a defence is for, as the rail knows it: the payment, and the rail's own id of the dispute. */
export interface DisputeToDefend {
  paymentId: string;
  /** A PIX MED devolução: `<endToEndId>/<devolução id>`. */
  externalId: string;
}
