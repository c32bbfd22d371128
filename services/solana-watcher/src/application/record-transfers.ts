import { cryptoRequestSettled, cryptoTransferUnapplied } from '@gateway/contracts';
import type { Transaction } from '@gateway/messaging';
import { counter, inStoredTrace, tracerOf, type Logger } from '@gateway/observability';
import type { ScanPage } from '../clients/signature-scanner';
import { applyTransfer, unappliedReason } from '../domain/settlement';
import { accountKeys, findReferencedTransfers, type ReferencedTransfer } from '../domain/transfer-validation';
import {
  insertTransferOnce,
  lockRequestsByReference,
  saveRequestReceipt,
  type PaymentRequestEntity,
} from '../persistence';

const tracer = tracerOf('@gateway/solana-watcher');

const transfersRecorded = counter('solana_watcher_transfers_total', 'Transfers recorded, by destination', [
  'applied_to',
]);
const requestsSettled = counter('solana_watcher_requests_settled_total', 'Transfer requests paid in full');

/** What makes a transfer found on chain ours: to the receiving wallet, in an accepted mint. */
export interface TransferCriteria {
  receivingWallet: string;
  /** Accepted mint -> its token program (classic SPL Token or Token-2022). */
  acceptedMints: ReadonlyMap<string, string>;
}

/**
 * Records every transfer of a scanned page that pays one of our references, in the page's transaction: the requests
 * of those references are locked first (in reference order), whatever their status, since late and superseded
 * transfers are recorded too.
 */
export async function recordTransfers(
  tx: Transaction,
  page: ScanPage,
  criteria: TransferCriteria,
  logger: Logger,
): Promise<void> {
  const keys = [...new Set(page.transactions.flatMap((scanned) => accountKeys(scanned.transaction)))];
  const requests = keys.length === 0 ? [] : await lockRequestsByReference(tx.manager, keys);
  const byReference = new Map(requests.map((request) => [request.reference, request]));
  const matching = { ...criteria, openReferences: new Set(byReference.keys()) };
  for (const scanned of page.transactions) {
    for (const transfer of findReferencedTransfers(scanned.transaction, matching)) {
      await record(tx, byReference.get(transfer.reference)!, transfer, logger);
    }
  }
}

/**
 * Records a transfer once per (signature, reference); only a new one changes the request, or, when it cannot count
 * towards the request, tells the payment service so the money is kept for the payment. It is processed in the trace
 * of the payment's creation, linked to the scan that found it.
 */
function record(
  tx: Transaction,
  request: PaymentRequestEntity,
  transfer: ReferencedTransfer,
  logger: Logger,
): Promise<void> {
  const attributes = {
    'gateway.payment_id': request.paymentId,
    'gateway.solana.signature': transfer.signature,
  };
  return inStoredTrace(tracer, 'transfer detected', request.traceContext, { attributes }, () =>
    recordTransfer(tx, request, transfer, logger),
  );
}

async function recordTransfer(
  tx: Transaction,
  request: PaymentRequestEntity,
  transfer: ReferencedTransfer,
  logger: Logger,
): Promise<void> {
  const outcome = applyTransfer(
    {
      status: request.status,
      mint: request.mint,
      amount: request.amountBaseUnits,
      received: request.receivedBaseUnits,
      expiresAt: request.expiresAt,
    },
    transfer,
  );
  const inserted = await insertTransferOnce(tx.manager, {
    signature: transfer.signature,
    reference: transfer.reference,
    paymentId: request.paymentId,
    amount: transfer.amount,
    mint: transfer.mint,
    slot: transfer.slot,
    blockTime: transfer.blockTime,
    appliedTo: outcome.appliedTo,
  });
  if (!inserted) return;
  transfersRecorded.inc({ applied_to: outcome.appliedTo });
  const details = {
    payment_id: request.paymentId,
    reference: request.reference,
    signature: transfer.signature,
  };
  if (outcome.appliedTo !== 'payment') {
    logger.warn({ ...details, applied_to: outcome.appliedTo }, 'transfer recorded aside');
    // Emitted with the transfer row, so the payment service learns of the money once per (signature, reference).
    await tx.emit(
      cryptoTransferUnapplied,
      {
        ...details,
        amount_base_units: transfer.amount.toString(),
        mint: transfer.mint,
        reason: unappliedReason(outcome.appliedTo, request.status),
        detected_at: new Date().toISOString(),
      },
      { correlationId: request.correlationId },
    );
    return;
  }
  request.receivedBaseUnits = outcome.received;
  if (outcome.settles) {
    request.status = 'settled';
    request.settledSignature = transfer.signature;
  }
  await saveRequestReceipt(tx.manager, request);
  if (!outcome.settles) {
    logger.info({ ...details, received: outcome.received.toString() }, 'partial payment received');
    return;
  }
  requestsSettled.inc();
  logger.info(details, 'request settled');
  await tx.emit(
    cryptoRequestSettled,
    {
      payment_id: request.paymentId,
      reference: request.reference,
      signature: transfer.signature,
      received_base_units: outcome.received.toString(),
      excess_base_units: outcome.excess.toString(),
      settled_at: new Date().toISOString(),
      payer_address: transfer.sourceOwner,
    },
    { correlationId: request.correlationId },
  );
}
