import { cryptoRequestSettled, type ArrivalQuote } from '@gateway/contracts';
import type { Transaction } from '@gateway/messaging';
import { counter, inStoredTrace, tracerOf, type Logger } from '@gateway/observability';
import type { ArrivalQuoteBook } from '../clients/arrival-quotes';
import type { ScanPage } from '../clients/signature-scanner';
import { applyTransfer, unappliedReason } from '../domain/settlement';
import { attributeInstruction } from '../domain/attribution';
import {
  accountKeys,
  findTransferInstructions,
  type InstructionTransfer,
} from '../domain/transfer-validation';
import {
  insertTransferOnce,
  lockRequestsByReference,
  saveRequestReceipt,
  type PaymentRequestEntity,
} from '../persistence';
import { emitTransferUnapplied } from './shared/transfer-unapplied';

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
 * Records every transfer instruction of a scanned page that names our references, in the page's transaction: the
 * requests of those references are locked first (in reference order), whatever their status, since late and
 * superseded transfers are recorded too. Each instruction's own amount goes to the one payment it names; one naming
 * several payments is kept aside for each of them and pays none (see `attributeInstruction`). Money that does not count
 * for its payment is reported with the quote of its token in `quotes`, taken before this transaction: it arrived now,
 * outside the window whose quote its payment locked, and is valued at what it is worth now.
 */
export async function recordTransfers(
  tx: Transaction,
  page: ScanPage,
  criteria: TransferCriteria,
  logger: Logger,
  quotes: ArrivalQuoteBook,
): Promise<void> {
  const keys = [...new Set(page.transactions.flatMap((scanned) => accountKeys(scanned.transaction)))];
  const requests = keys.length === 0 ? [] : await lockRequestsByReference(tx.manager, keys);
  const byReference = new Map(requests.map((request) => [request.reference, request]));
  const matching = { ...criteria, knownReferences: new Set(byReference.keys()) };
  for (const scanned of page.transactions) {
    for (const transfer of findTransferInstructions(scanned.transaction, matching)) {
      const attribution = attributeInstruction(transfer.references.map((key) => byReference.get(key)!));
      const quote = quotes.get(transfer.mint) ?? null;
      if (attribution.kind === 'request') await record(tx, attribution.request, transfer, logger, quote);
      else await recordAmbiguous(tx, attribution.requests, transfer, logger, quote);
    }
  }
}

/**
 * Records an instruction that named several payments' references once, under the first of them, and tells the
 * payment service about it for each payment named, so every merchant concerned sees the money and none is paid.
 */
async function recordAmbiguous(
  tx: Transaction,
  requests: PaymentRequestEntity[],
  transfer: InstructionTransfer,
  logger: Logger,
  quote: ArrivalQuote | null,
): Promise<void> {
  const inserted = await insertTransferOnce(tx.manager, {
    ...transferRecord(requests[0]!, transfer),
    appliedTo: 'ambiguous',
  });
  if (!inserted) return;
  transfersRecorded.inc({ applied_to: 'ambiguous' });
  logger.warn(
    {
      signature: transfer.signature,
      instruction: transfer.instruction,
      payment_ids: requests.map((request) => request.paymentId),
    },
    'transfer naming several payments recorded aside for each of them; it pays none',
  );
  for (const request of requests) await emitTransferUnapplied(tx, request, transfer, 'ambiguous', quote);
}

function transferRecord(request: PaymentRequestEntity, transfer: InstructionTransfer) {
  return {
    signature: transfer.signature,
    instruction: transfer.instruction,
    reference: request.reference,
    paymentId: request.paymentId,
    amount: transfer.amount,
    mint: transfer.mint,
    slot: transfer.slot,
    blockTime: transfer.blockTime,
  };
}

/**
 * Records a transfer instruction once per (signature, instruction); only a new one changes the request, or, when it
 * cannot count towards the request, tells the payment service so the money is kept for the payment. It is processed
 * in the trace of the payment's creation, linked to the scan that found it.
 */
function record(
  tx: Transaction,
  request: PaymentRequestEntity,
  transfer: InstructionTransfer,
  logger: Logger,
  quote: ArrivalQuote | null,
): Promise<void> {
  const attributes = {
    'gateway.payment_id': request.paymentId,
    'gateway.solana.signature': transfer.signature,
  };
  return inStoredTrace(tracer, 'transfer detected', request.traceContext, { attributes }, () =>
    recordTransfer(tx, request, transfer, logger, quote),
  );
}

async function recordTransfer(
  tx: Transaction,
  request: PaymentRequestEntity,
  transfer: InstructionTransfer,
  logger: Logger,
  quote: ArrivalQuote | null,
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
    ...transferRecord(request, transfer),
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
    // Emitted with the transfer row, so the payment service learns of the money once per instruction.
    await emitTransferUnapplied(
      tx,
      request,
      transfer,
      unappliedReason(outcome.appliedTo, request.status),
      quote,
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
