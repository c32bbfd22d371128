import type { CryptoTransferUnapplied } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { counter, type Logger } from '@gateway/observability';
import type { EntityManager } from 'typeorm';
import type { ReceivedFunds } from '../domain/funds';
import { lockPayment, recordReceivedFunds } from '../persistence';

const lateFunds = counter(
  'payment_late_funds_total',
  'Funds a rail confirmed after the payment had ended (kept in received_funds for reconciliation)',
  ['rail'],
);

/**
 * Keeps money that arrived for a payment that can no longer take it, and makes it visible to operators. It is `late`
 * unless it matches no payment we know (or the caller says it does not match the payment: `kind: 'unmatched'`).
 * `reason` is the rail's word for why, logged.
 */
export async function recordLateFunds(
  manager: EntityManager,
  logger: Logger,
  funds: Omit<ReceivedFunds, 'kind'> & { kind?: 'late' | 'unmatched' },
  paymentStatus: string | null,
  reason?: string,
): Promise<void> {
  const kind = paymentStatus === null ? 'unmatched' : (funds.kind ?? 'late');
  if (!(await recordReceivedFunds(manager, { ...funds, kind }))) return;
  lateFunds.inc({ rail: funds.rail });
  logger.warn(
    {
      payment_id: funds.paymentId,
      payment_status: paymentStatus,
      kind,
      reason,
      rail: funds.rail,
      rail_reference: funds.railReference,
      amount_centavos: funds.amountCentavos,
      amount_base_units: funds.amountBaseUnits,
    },
    'funds received for a payment that cannot take them: recorded for reconciliation',
  );
}

/**
 * A transfer the watcher saw for the payment that did not count towards it: kept in received_funds under its
 * signature, never applied and never changing the payment's status. A transfer in another token is `unmatched` (it
 * is not the money the payment asked for, whenever it came); any other (after expiry, after settlement, to a
 * superseded reference) is `late`. Once per message (inbox).
 */
export function keepUnappliedTransfer(
  uow: UnitOfWork,
  transfer: CryptoTransferUnapplied,
  context: MessageContext,
): Promise<void> {
  return uow.once(context, async (tx) => {
    const payment = await lockPayment(tx.manager, transfer.payment_id);
    // The same transaction also paid the payment under its current reference: that money is already counted.
    if (payment?.transactionId === transfer.signature) return;
    await recordLateFunds(
      tx.manager,
      context.logger,
      {
        paymentId: transfer.payment_id,
        kind: transfer.reason === 'wrong_mint' ? 'unmatched' : 'late',
        rail: 'crypto',
        railReference: transfer.signature,
        amountCentavos: null,
        amountBaseUnits: transfer.amount_base_units,
        detectedAt: new Date(transfer.detected_at),
      },
      payment?.status ?? null,
      transfer.reason,
    );
  });
}
