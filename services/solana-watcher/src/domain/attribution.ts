/** A request one of a transfer instruction's references belongs to. */
export interface NamedRequest {
  reference: string;
  paymentId: string;
  status: string;
}

/**
 * Which request one transfer instruction's money goes to: the instruction must name the references of one payment
 * only. Naming two or more payments' references credits none of them (`ambiguous`: a single transfer cannot pay two
 * payments, and choosing one would be a guess), and the money is kept aside for every payment it named. A payment
 * named by an earlier reference and its current one (an amount change) is one payment: its open request takes it.
 */
export function attributeInstruction<R extends NamedRequest>(
  named: readonly R[],
): { kind: 'request'; request: R } | { kind: 'ambiguous'; requests: R[] } {
  const byPayment = new Map<string, R>();
  for (const request of named) {
    const chosen = byPayment.get(request.paymentId);
    if (!chosen || (chosen.status !== 'open' && request.status === 'open'))
      byPayment.set(request.paymentId, request);
  }
  const requests = [...byPayment.values()];
  if (requests.length === 1) return { kind: 'request', request: requests[0]! };
  return { kind: 'ambiguous', requests };
}
