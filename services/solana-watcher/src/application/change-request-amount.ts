import type { DataSource } from 'typeorm';
import type { ChangeCryptoRequestAmount, RevisedCryptoRequest } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import { closeOpenRequest, insertRequest } from '../persistence';
import type { PaymentDetector } from './payment-detector';
import type { RequestIssuer } from './request-issuer';
import { openRequestOrRefuse } from './shared/request-refusals';

export interface ChangeAmountDependencies {
  dataSource: DataSource;
  uow: UnitOfWork;
  issuer: RequestIssuer;
  detector: Pick<PaymentDetector, 'scanReference'>;
}

const windowPassed = () =>
  new CommandError(
    'INVALID_STATUS',
    'O prazo do pedido de pagamento em cripto terminou: o valor não pode mais ser alterado.',
  );

/**
 * A new amount gets a new reference, link, QR code, quote and window; the previous request is superseded, and a
 * transfer still arriving on it is recorded as such. What the previous request had received is answered, so the
 * payment keeps it on record. Once the window has passed the change is refused even if the detector has not closed
 * the request yet (it stays open through the confirmation grace, for a transfer that landed in time): a new window
 * would reopen a payment that has expired. The new quote is locked (possibly over
 * HTTP) and the old reference scanned on chain a last time before the short transaction that supersedes and stores,
 * never inside it: a transfer confirmed before that scan counts for the old request (in full it pays the payment and
 * the change is refused INVALID_STATUS; a part is carried over as received), one confirmed after it is superseded.
 */
export async function changeRequestAmount(
  { dataSource, uow, issuer, detector }: ChangeAmountDependencies,
  command: ChangeCryptoRequestAmount,
  context: MessageContext,
): Promise<RevisedCryptoRequest> {
  const seen = await openRequestOrRefuse(dataSource.manager, command.payment_id);
  if (seen.expiresAt.getTime() <= Date.now()) throw windowPassed();
  const request = await issuer.prepare({
    paymentId: command.payment_id,
    businessName: command.business_name,
    amountCentavos: command.amount_centavos,
    token: seen.token,
    correlationId: seen.correlationId,
    traceContext: seen.traceContext,
  });
  // The last look at the old reference, after the quote and just before the supersede, outside any transaction:
  // a transfer already on chain counts for the request it was sent to. Paid in full, the request settles and the
  // change is refused below; a part is what the superseded request received.
  await detector.scanReference(seen.reference).catch((err: unknown) => {
    context.logger.warn({ err: String(err), reference: seen.reference }, 'last scan before a change failed');
    throw new CommandError('SERVICE_UNAVAILABLE', 'A rede Solana não respondeu. Tente novamente.');
  });
  return uow.once(context, async (tx) => {
    // Locked: the detector cannot settle or close it between this check and the supersede.
    const current = await openRequestOrRefuse(tx.manager, command.payment_id, { forUpdate: true });
    if (current.expiresAt.getTime() <= Date.now()) throw windowPassed();
    // Another change got in since: this one's request would replace a request its caller never saw.
    if (current.reference !== seen.reference)
      throw new CommandError('SERVICE_UNAVAILABLE', 'O pedido de pagamento mudou. Tente novamente.');
    await closeOpenRequest(tx.manager, current.reference, 'superseded');
    await insertRequest(tx.manager, request);
    context.logger.info(
      {
        payment_id: command.payment_id,
        reference: request.reference,
        superseded: current.reference,
        superseded_received: current.receivedBaseUnits.toString(),
      },
      'request amount changed',
    );
    return {
      ...(await issuer.describe(request)),
      superseded: {
        reference: current.reference,
        received_base_units: current.receivedBaseUnits.toString(),
      },
    };
  });
}
