import {
  MANUAL_RETURN,
  partsAddUpTo,
  type AmountParts,
  OPERATOR_RETURN,
  type CryptoInstructions,
  type FundsReturnRequested,
  type OperatorReceivedFundsItem,
  type PaymentMethod,
  type PaymentPayer,
  type ReceivedFundsItem,
  type ReceivedFundsKind,
  type ReceivedFundsStatus,
  type Token,
} from '@gateway/contracts';

/**
 * Money a rail received for a payment, whatever the rail: a PIX, an on-chain transfer, or what a crypto request's
 * window collected. Amounts are in the rail's own integer unit: centavos for PIX, token base units for crypto.
 */
export interface FundsReceived {
  paymentId: string;
  rail: PaymentMethod;
  /** The rail's id for it: a PIX endToEndId, a transaction signature, a crypto request's reference. */
  reference: string;
  received: bigint;
  /**
   * What it is measured against: the payment's own amount (a rail that charges it as it is: PIX, in centavos), the
   * rail's own price in its unit (crypto: base units at the request's quote), or nothing when the rail already
   * counted it short of its price (what an unpaid crypto window collected).
   */
  against:
    | { kind: 'payment-amount' }
    | { kind: 'price'; units: bigint }
    | { kind: 'counted-short' }
    /**
     * A Pix into a charge with a due date, which its rail judged: `parts` when they pay the charge (whatever the
     * amount against the original: a fine, a discount), null when they do not (a wrong amount, paying nothing).
     */
    | { kind: 'due-charge'; parts: AmountParts | null };
  /** Who sent it, when the rail said (stored with the payment these funds pay). */
  payer?: PaymentPayer | null;
}

/**
 * Funds kept on record outside the happy path (partial, excess, late, unmatched, unreadable), once per rail reference
 * and instruction.
 */
export interface ReceivedFunds {
  paymentId: string;
  kind: ReceivedFundsKind;
  rail: 'pix' | 'crypto';
  railReference: string;
  /** Which transfer instruction of the transaction (crypto money kept aside per instruction); none: all of it. */
  instruction?: string;
  amountCentavos: number | null;
  amountBaseUnits: string | null;
  /** When the rail saw the money; now when not told. */
  detectedAt?: Date;
}

/** The received_funds record of `funds` (or of a part of it: `amount`, in the funds' unit). */
export function fundsRecord<K extends ReceivedFundsKind>(
  funds: FundsReceived,
  kind: K,
  amount: bigint = funds.received,
): ReceivedFunds & { kind: K } {
  return {
    paymentId: funds.paymentId,
    kind,
    rail: funds.rail,
    railReference: funds.reference,
    amountCentavos: funds.rail === 'pix' ? Number(amount) : null,
    amountBaseUnits: funds.rail === 'pix' ? null : amount.toString(),
  };
}

/** What funds do to their payment, decided before any write. `excess` is in the funds' unit. */
export type FundsDecision =
  | { kind: 'paid'; excess: bigint; parts?: AmountParts }
  | { kind: 'partial' }
  | { kind: 'late' }
  /**
   * A due-date payment's Pix that does not pay it (its rail did not accept its parts): held as it is, `excess` when it
   * was the original or more (never counted as an underpayment), `partial` when less.
   */
  | { kind: 'not-accepted'; as: 'partial' | 'excess' };

/**
 * The one place that decides whether money pays a payment: the full amount (or more) pays an open payment, less is
 * partial (the payment stays open, and its closure becomes UNDERPAID), anything after the end is late.
 */
export function decideFunds(
  funds: FundsReceived,
  payment: { isOpen: boolean; amountCentavos: number; dueDate?: boolean } | null,
): FundsDecision {
  if (!payment?.isOpen) return { kind: 'late' };
  // A due-date payment is paid only by a Pix its rail judged (with its parts); one reported without a judgement (a
  // closure's list of what did not pay it) never pays it, whatever its amount against the original.
  const notAccepted = (): FundsDecision => ({
    kind: 'not-accepted',
    as: funds.received < BigInt(payment.amountCentavos) ? 'partial' : 'excess',
  });
  if (payment.dueDate && funds.against.kind === 'payment-amount') return notAccepted();
  if (funds.against.kind === 'counted-short') return { kind: 'partial' };
  if (funds.against.kind === 'due-charge') {
    const { parts } = funds.against;
    // What the rail found paying: its original must be this payment's amount and its parts add up to what came in.
    const pays =
      parts !== null &&
      parts.original === payment.amountCentavos &&
      partsAddUpTo(parts, Number(funds.received));
    return pays ? { kind: 'paid', excess: 0n, parts } : notAccepted();
  }
  const expected = funds.against.kind === 'price' ? funds.against.units : BigInt(payment.amountCentavos);
  if (funds.received < expected) return { kind: 'partial' };
  return { kind: 'paid', excess: funds.received - expected };
}

/** A rail's window closed without the payment paid: it passed, or the rail refused the payment. */
export interface RailClosure {
  paymentId: string;
  /**
   * `amount-not-accepted`: the rail closed a due-date charge that took a Pix it did not accept (it can never pay);
   * `debit-failed`: a subscription cycle's automatic debit failed its last attempt (Pix Automático);
   * `cycle-cancelled`: the payer cancelled the cycle, or its recurrence ended, before it was debited.
   */
  ending: 'window-passed' | 'refused' | 'amount-not-accepted' | 'debit-failed' | 'cycle-cancelled';
  /** The rail's word for a refusal. */
  detail: string | null;
  /** Funds the rail took during the window, each decided like any other before the closure is. */
  funds: FundsReceived[];
}

export interface ClosureOutcome {
  status: 'expired' | 'failed' | 'cancelled';
  failureCode: string | null;
  failureReason: string | null;
}

/**
 * The one place that decides underpayment: a window that passed after partial funds fails UNDERPAID, without any it
 * is a plain expiry; a rail's refusal fails the payment.
 */
export function decideClosure(
  ending: RailClosure['ending'],
  partialReceived: boolean,
  detail: string | null,
): ClosureOutcome {
  if (ending === 'window-passed' && partialReceived) {
    return {
      status: 'failed',
      failureCode: 'UNDERPAID',
      failureReason: 'O valor recebido foi menor que o valor do pagamento.',
    };
  }
  if (ending === 'window-passed') return { status: 'expired', failureCode: null, failureReason: null };
  // The payer cancelled the cycle (or the recurrence ended) before its debit: nothing failed, it is not to be paid.
  if (ending === 'cycle-cancelled') return { status: 'cancelled', failureCode: null, failureReason: null };
  if (ending === 'amount-not-accepted')
    return {
      status: 'failed',
      failureCode: 'AMOUNT_NOT_ACCEPTED',
      failureReason:
        'O Pix recebido não corresponde às regras da cobrança com vencimento (multa, juros, abatimento ou desconto) e a cobrança não pode mais ser paga; o valor fica retido para devolução.',
    };
  if (ending === 'debit-failed')
    return {
      status: 'failed',
      failureCode: 'AUTOMATIC_DEBIT_FAILED',
      failureReason: detail
        ? `O débito automático do ciclo não foi feito após a última tentativa: ${detail}.`
        : 'O débito automático do ciclo não foi feito após a última tentativa.',
    };
  return {
    status: 'failed',
    failureCode: 'RAIL_FAILED',
    failureReason: detail
      ? `O pagamento foi recusado pela rede: ${detail}.`
      : 'O pagamento foi recusado pela rede.',
  };
}

/**
 * Where kept money stands with the payer: held until something returns it; returned by hand at once; returning while
 * the refund that carries it is in flight, returned once that refund succeeded (a failed one gives it back: held);
 * assigned once the operator credited it to a payment's business (never returned then).
 */
export function receivedFundsStatus(
  returnedBy: string | null,
  returnedAt: Date | null,
  assignedAt: Date | null = null,
): ReceivedFundsStatus {
  if (assignedAt !== null) return 'assigned';
  if (returnedBy === null) return 'held';
  if (returnedBy === MANUAL_RETURN || returnedAt !== null) return 'returned';
  return 'returning';
}

/** A received-funds record as this service stores it (the entity has this shape). */
export interface StoredReceivedFunds {
  fundsId: string;
  kind: ReceivedFundsKind;
  rail: 'pix' | 'crypto';
  railReference: string;
  /** The transfer instruction of a Solana transaction ("2", "2.0" inner); '' for a whole transaction or transfer. */
  instruction: string;
  amountCentavos: number | null;
  amountBaseUnits: string | null;
  recordedAt: Date;
  returnedBy: string | null;
  returnedAt: Date | null;
  assignedPaymentId: string | null;
  assignedAt: Date | null;
  /** The value the books were told (null: not valued, nothing booked). */
  valuedCentavos: number | null;
  /** The arrival quote that gave that value (tokens outside their payment's window); null otherwise. */
  quoteToken: Token | null;
  quoteTokenPerBrl: string | null;
  quotedAt: Date | null;
  returnReference?: string | null;
  returnFailureReason?: string | null;
}

/**
 * The decimals of a payment's token amounts: a rail that counts in token base units says so in its instructions (the
 * watcher's TOKEN_DECIMALS); PIX counts in centavos and has none.
 */
export function tokenDecimalsOf(instructions: unknown): number | null {
  return (instructions as Partial<CryptoInstructions> | null)?.decimals ?? null;
}

/**
 * How money kept by several payments (one transfer instruction naming them all) went back, or was assigned, through
 * another one.
 */
export interface ReturnElsewhere {
  returnedBy: string | null;
  returnedAt: Date | null;
  assignedPaymentId: string | null;
  assignedAt: Date | null;
  /** The operator's return that carried it: the rail's id of it (the devolução id, the signature), once confirmed. */
  returnReference?: string | null;
}

/**
 * One record as the lists (and a return by hand) answer it. Money one instruction sent naming several payments is kept
 * by each; once it went back (or was assigned) through one of them, the others' records show that too (never `held`).
 */
export function toReceivedFundsItem(
  stored: StoredReceivedFunds,
  decimals: number | null,
  returnedElsewhere?: ReturnElsewhere,
): ReceivedFundsItem {
  const row =
    stored.returnedBy === null && stored.assignedAt === null && returnedElsewhere
      ? { ...stored, ...returnedElsewhere }
      : stored;
  return {
    funds_id: row.fundsId,
    kind: row.kind,
    rail: row.rail,
    reference: row.railReference,
    instruction: row.instruction === '' ? null : row.instruction,
    amount_centavos: row.amountCentavos,
    amount_base_units: row.amountBaseUnits,
    decimals: row.amountBaseUnits === null ? null : decimals,
    detected_at: row.recordedAt.toISOString(),
    status: receivedFundsStatus(row.returnedBy, row.returnedAt, row.assignedAt),
    returned_by: row.returnedBy,
    returned_at: row.returnedAt?.toISOString() ?? null,
    valued_centavos: row.valuedCentavos,
    quote:
      row.quoteToken === null || row.quoteTokenPerBrl === null || row.quotedAt === null
        ? null
        : {
            token: row.quoteToken,
            token_per_brl: row.quoteTokenPerBrl,
            quoted_at: row.quotedAt.toISOString(),
          },
    // Only on assigned records: the answers of every other record are as they were.
    ...(row.assignedAt === null
      ? {}
      : { assigned_payment_id: row.assignedPaymentId, assigned_at: row.assignedAt.toISOString() }),
  };
}

/**
 * One record as the operator sees it: with the payment it is kept for and that payment's business (`payment`: null
 * when the gateway does not know it), and where the operator's return through the rail stands.
 */
export function toOperatorReceivedFundsItem(
  stored: StoredReceivedFunds & { paymentId: string },
  payment: { businessId: string; instructions: unknown } | null,
  returnedElsewhere?: ReturnElsewhere,
): OperatorReceivedFundsItem {
  return {
    ...toReceivedFundsItem(stored, payment ? tokenDecimalsOf(payment.instructions) : null, returnedElsewhere),
    payment_id: stored.paymentId,
    business_id: payment?.businessId ?? null,
    return_reference:
      (stored.returnedBy === null && stored.assignedAt === null
        ? returnedElsewhere?.returnReference
        : stored.returnReference) ?? null,
    return_failure_reason: stored.returnFailureReason ?? null,
  };
}

/**
 * Whether the operator is returning, or returned, this money already: through this record, or — money one transfer
 * sent naming several payments, kept by each — through another record of the same money (`elsewhere`, while this one
 * is not taken itself). Asked again, the operator's return answers the record as it stands: one return on the rail.
 */
export function returnedByOperatorAlready(
  funds: Pick<StoredReceivedFunds, 'returnedBy' | 'assignedAt'>,
  elsewhere?: ReturnElsewhere,
): boolean {
  if (funds.returnedBy !== null || funds.assignedAt !== null) return funds.returnedBy === OPERATOR_RETURN;
  return elsewhere?.returnedBy === OPERATOR_RETURN && elsewhere.assignedAt === null;
}

/** The id of the operator's `attempt`-th return of the funds through the rail (the rail derives its own from it). */
export function operatorReturnId(fundsId: string, attempt: number): string {
  return `${fundsId}.return.${attempt}`;
}

/** What the rail is asked to carry out for the operator's return `returnId` of the funds (the same when asked again). */
export function operatorReturnRequest(
  funds: Pick<
    StoredReceivedFunds & { paymentId: string },
    'fundsId' | 'paymentId' | 'rail' | 'railReference' | 'instruction' | 'amountCentavos' | 'amountBaseUnits'
  >,
  returnId: string,
  reason: string | null,
): FundsReturnRequested {
  return {
    return_id: returnId,
    funds_id: funds.fundsId,
    payment_id: funds.paymentId,
    rail_reference: funds.railReference,
    instruction: funds.instruction === '' ? null : funds.instruction,
    amount_centavos: funds.rail === 'pix' ? funds.amountCentavos : null,
    amount_base_units: funds.rail === 'pix' ? null : funds.amountBaseUnits,
    reason,
  };
}

/**
 * Why funds that looked held could not be taken (assigned, returned by hand or by the operator): assigned or returned
 * already, being returned, amount unknown, or the same money returned or assigned through another record.
 */
export function whyFundsNotHeld(
  funds: Pick<StoredReceivedFunds, 'kind' | 'returnedBy' | 'returnedAt' | 'assignedPaymentId'>,
): string {
  if (funds.assignedPaymentId !== null)
    return `Estes fundos já foram atribuídos ao pagamento ${funds.assignedPaymentId}.`;
  if (funds.returnedBy === MANUAL_RETURN) return 'Estes fundos já foram devolvidos manualmente.';
  if (funds.returnedBy === OPERATOR_RETURN)
    return funds.returnedAt === null
      ? 'Estes fundos estão sendo devolvidos ao pagador pelo operador.'
      : 'Estes fundos já foram devolvidos ao pagador pelo operador.';
  if (funds.returnedBy !== null)
    return funds.returnedAt === null
      ? `Estes fundos estão sendo devolvidos pelo reembolso ${funds.returnedBy}.`
      : `Estes fundos foram devolvidos pelo reembolso ${funds.returnedBy}.`;
  if (funds.kind === 'unreadable')
    return 'O valor destes fundos ainda não é conhecido: a transação ainda não pôde ser lida.';
  return 'Este dinheiro já foi devolvido ou atribuído por meio de outro pagamento que a mesma transferência nomeia.';
}
