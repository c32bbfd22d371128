import type { DataSource } from 'typeorm';
import type { CryptoRequestStatus, GetCryptoRequestStatus } from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import { latestRequest } from '../persistence';

/**
 * What the payment's newest transfer request has received, as the detector recorded it from the chain (the payment
 * service's reconciliation asks): its settlement once paid in full, its closure once the window ended unpaid, with
 * the same figures as the crypto.request.settled.v1 / crypto.request.closed.v1 it emitted then.
 */
export function handleCryptoRequestStatus(dataSource: DataSource) {
  return async (command: GetCryptoRequestStatus): Promise<CryptoRequestStatus> => {
    const request = await latestRequest(dataSource.manager, command.payment_id);
    if (!request) throw new CommandError('NOT_FOUND', 'Pagamento em cripto não encontrado.');
    const received = request.receivedBaseUnits;
    // The contract's statuses predate cancellation: a cancelled request is answered as failed, with no closure to
    // apply (its payment is final; what it had received was reported as unapplied transfers when it was cancelled).
    const status = request.status === 'cancelled' ? 'failed' : request.status;
    return {
      reference: request.reference,
      status,
      received_base_units: received.toString(),
      settlement:
        status === 'settled' && request.settledSignature !== null
          ? {
              signature: request.settledSignature,
              received_base_units: received.toString(),
              excess_base_units: (received - request.amountBaseUnits).toString(),
            }
          : null,
      closure:
        request.status === 'expired' || request.status === 'underpaid' || request.status === 'failed'
          ? { reason: request.status, received_base_units: received.toString() }
          : null,
    };
  };
}
