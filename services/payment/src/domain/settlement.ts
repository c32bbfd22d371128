/** What a rail's "money arrived" report means for a payment, decided before any write. */
export type SettlementDecision =
  { kind: 'paid'; excessCentavos: number } | { kind: 'partial' } | { kind: 'late' };

export function decidePixSettlement(input: {
  paymentIsOpen: boolean;
  expectedCentavos: number;
  receivedCentavos: number;
}): SettlementDecision {
  if (!input.paymentIsOpen) return { kind: 'late' };
  if (input.receivedCentavos < input.expectedCentavos) return { kind: 'partial' };
  return { kind: 'paid', excessCentavos: input.receivedCentavos - input.expectedCentavos };
}

export type RailClosure = 'expired' | 'underpaid' | 'failed';

export interface ClosureOutcome {
  status: 'expired' | 'failed';
  failureCode: string | null;
  failureReason: string | null;
}

/** Window passed with nothing received -> expired; with a partial amount -> failed UNDERPAID; rail refusal -> failed. */
export function decideClosure(
  reason: RailClosure,
  partialReceived: boolean,
  detail: string | null,
): ClosureOutcome {
  if (reason === 'underpaid' || (reason === 'expired' && partialReceived)) {
    return {
      status: 'failed',
      failureCode: 'UNDERPAID',
      failureReason: 'O valor recebido foi menor que o valor do pagamento.',
    };
  }
  if (reason === 'expired') return { status: 'expired', failureCode: null, failureReason: null };
  return {
    status: 'failed',
    failureCode: 'RAIL_FAILED',
    failureReason: detail
      ? `O pagamento foi recusado pela rede: ${detail}.`
      : 'O pagamento foi recusado pela rede.',
  };
}
