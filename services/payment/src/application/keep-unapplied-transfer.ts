import type { CryptoTransferUnapplied } from '@gateway/contracts';
import type { MessageContext, Transaction, UnitOfWork } from '@gateway/messaging';
import { counter, type Logger } from '@gateway/observability';
import type { ReceivedFunds } from '../domain/funds';
import type { TokenValuation } from '../domain/funds-in-books';
import { forgetUnreadableFunds, lockPayment, type PaymentEntity } from '../persistence';
import { keepReceivedFunds } from './shared/received-funds-events';

const lateFunds = counter(
  'payment_late_funds_total',
  'Funds a rail confirmed after the payment had ended (kept in received_funds for reconciliation)',
  ['rail'],
);

/**
 * Keeps money that arrived for a payment that can no longer take it, and makes it visible to operators (and to the
 * books, which hold it in suspense). It is `late` unless it matches no payment we know (`payment` null) or the caller
 * says it does not match the payment (`kind: 'unmatched'`). `reason` is the rail's word for why, logged;
 * `valuation`: how a token amount is valued (tokens outside their payment's window: at the quote of their arrival).
 */
export async function recordLateFunds(
  tx: Transaction,
  logger: Logger,
  funds: Omit<ReceivedFunds, 'kind'> & { kind?: 'late' | 'unmatched' | 'unreadable' },
  payment: PaymentEntity | null,
  reason?: string,
  valuation?: TokenValuation,
): Promise<void> {
  const paymentStatus = payment?.status ?? null;
  const kind = paymentStatus === null ? 'unmatched' : (funds.kind ?? 'late');
  // A transfer in another token is not valued at the payment's price.
  const otherToken = reason === 'wrong_mint';
  if (!(await keepReceivedFunds(tx, { ...funds, kind }, payment, { otherToken, valuation }))) return;
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

/** Transfers that are not the money the payment asked for, whenever they came. */
const UNMATCHED_REASONS: ReadonlySet<CryptoTransferUnapplied['reason']> = new Set([
  'wrong_mint',
  'ambiguous',
]);

function fundsKindOf(
  reason: Exclude<CryptoTransferUnapplied['reason'], 'read'>,
): 'late' | 'unmatched' | 'unreadable' {
  if (reason === 'unreadable') return 'unreadable';
  return UNMATCHED_REASONS.has(reason) ? 'unmatched' : 'late';
}

/**
 * A transfer the watcher saw for the payment that did not count towards it: kept in received_funds under its
 * signature and instruction (each instruction of one transaction is its own money), never applied and never changing
 * the payment's status. A transfer in another token, or one naming
 * several payments' references (it pays none of them, each keeps it on record), is `unmatched`; a transaction the
 * watcher cannot read yet is `unreadable` (amount unknown), replaced by what it turns out to be once read; any other
 * (after expiry, after settlement, to a superseded reference) is `late`. Once the watcher has read such a transaction
 * (`read`), its unreadable record goes, whatever the money turned out to be: that is reported on its own (paid,
 * partial at the window's close, late, unmatched), or it held none of the payment's money. Its tokens are valued at
 * the quote the watcher had when it recorded them (`quote`), never at the quote the payment locked when it was created;
 * without one (none could be had, or an event written before the watcher sent it) they are not valued: nothing is
 * booked for them and they cannot be credited to anyone (docs/money-model.md#suspense). Once per message (inbox).
 */
export function keepUnappliedTransfer(
  uow: UnitOfWork,
  transfer: CryptoTransferUnapplied,
  context: MessageContext,
): Promise<void> {
  return uow.once(context, async (tx) => {
    // The watcher reports each transfer instruction's own money: another instruction of the transaction that paid
    // the payment is other money, kept like any other.
    const payment = await lockPayment(tx.manager, transfer.payment_id);
    if (transfer.reason === 'read') {
      await forgetUnreadableFunds(tx.manager, transfer.payment_id, transfer.signature);
      return;
    }
    await recordLateFunds(
      tx,
      context.logger,
      {
        paymentId: transfer.payment_id,
        kind: fundsKindOf(transfer.reason),
        rail: 'crypto',
        railReference: transfer.signature,
        instruction: transfer.instruction,
        amountCentavos: null,
        amountBaseUnits: transfer.amount_base_units,
        detectedAt: new Date(transfer.detected_at),
      },
      payment,
      transfer.reason,
      { at: 'arrival', quote: transfer.quote ?? null },
    );
  });
}
