import type { DisputeRecord, DisputeStatus, PixMedReported } from '@gateway/contracts';

/** A dispute as this service keeps it (its row). */
export interface StoredDispute {
  id: string;
  paymentId: string;
  businessId: string;
  method: 'pix';
  externalId: string;
  amountCentavos: number;
  status: DisputeStatus;
  reason: string | null;
  defenceSubmittedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * How a MED devolução's status ends its dispute (docs/adr/0033-med-disputes.md): `DEVOLVIDO` means the PSP sent the
 * money back to the payer (lost), `NAO_REALIZADO` that the MED was not carried out (won); `EM_PROCESSAMENTO` leaves it
 * open.
 */
export function medOutcome(status: PixMedReported['status']): 'won' | 'lost' | null {
  if (status === 'DEVOLVIDO') return 'lost';
  if (status === 'NAO_REALIZADO') return 'won';
  return null;
}

/** What a report of a MED devolução does to its dispute, given the one already kept for it (if any). */
export type MedDecision =
  | { open: boolean; close: 'won' | 'lost' | null }
  /** Nothing to do: the report tells nothing new (a repeat, or a dispute already closed). */
  | null;

/**
 * A MED seen for the first time opens a dispute (and closes it at once when it is already final: its opening callback
 * was lost); an open one closes when its devolução is final; anything else (a repeat, a report after the end) is no
 * change. A dispute never reopens nor changes its outcome.
 */
export function decideMed(
  existing: { status: DisputeStatus } | null,
  reported: PixMedReported['status'],
): MedDecision {
  const close = medOutcome(reported);
  if (existing === null) return { open: true, close };
  if (existing.status === 'open' && close !== null) return { open: false, close };
  return null;
}

/**
 * What of a paid payment can still go back to the payer, by a refund or a MED: the refunds not failed and the
 * disputes not won are out of it, so the same money never goes back twice (the payments' CHECK holds it too).
 */
export function disputableCentavos(payment: {
  amountCentavos: number;
  /** A due-date payment's amount paid, which is what can go back (absent or null: the amount). */
  amountPaidCentavos?: number | null;
  refundReservedCentavos: number;
  disputedCentavos: number;
}): number {
  return (
    (payment.amountPaidCentavos ?? payment.amountCentavos) -
    payment.refundReservedCentavos -
    payment.disputedCentavos
  );
}

export function toDisputeRecord(dispute: StoredDispute): DisputeRecord {
  return {
    dispute_id: dispute.id,
    payment_id: dispute.paymentId,
    business_id: dispute.businessId,
    method: dispute.method,
    amount_centavos: dispute.amountCentavos,
    status: dispute.status,
    reason: dispute.reason,
    defence_submitted_at: dispute.defenceSubmittedAt?.toISOString() ?? null,
    created_at: dispute.createdAt.toISOString(),
    updated_at: dispute.updatedAt.toISOString(),
  };
}

/**
 * Why a dispute takes no defence now, or null when it takes one: only an open dispute, and only once (a defence sent
 * is with the PSP; a second would not replace it).
 */
export function defenceRefusal(dispute: Pick<StoredDispute, 'status' | 'defenceSubmittedAt'>): string | null {
  if (dispute.status !== 'open') return `Operação não permitida: a disputa está ${dispute.status}.`;
  if (dispute.defenceSubmittedAt !== null)
    return 'Operação não permitida: a defesa desta disputa já foi enviada.';
  return null;
}
