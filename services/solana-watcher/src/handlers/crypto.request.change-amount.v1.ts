import type { DataSource } from 'typeorm';
import type { ChangeCryptoRequestAmount, RevisedCryptoRequest } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import { PaymentRequestEntity } from '../persistence';
import { openRequestOrRefuse } from '../requests/open-request';
import type { RequestIssuer } from '../requests/request-issuer';

const windowPassed = () =>
  new CommandError(
    'INVALID_STATUS',
    'O prazo do pedido de pagamento em cripto terminou: o valor não pode mais ser alterado.',
  );

/**
 * A new amount gets a new reference, link, QR code, quote and window; the previous request is superseded, and a
 * transfer still arriving on it is recorded as such. What the previous request had received is answered, so the
 * payment keeps it on record. Once the window has passed the change is refused even if the detector has not closed
 * the request yet: a new window would reopen a payment that has expired. The new quote is locked (possibly over
 * HTTP) before the short transaction that supersedes and stores, never inside it.
 */
export function handleChangeCryptoRequestAmount(
  dataSource: DataSource,
  uow: UnitOfWork,
  issuer: RequestIssuer,
) {
  return async (
    command: ChangeCryptoRequestAmount,
    context: MessageContext,
  ): Promise<RevisedCryptoRequest> => {
    const seen = await openRequestOrRefuse(dataSource.manager, command.payment_id);
    if (seen.expiresAt.getTime() <= Date.now()) throw windowPassed();
    const request = await issuer.prepare({
      paymentId: command.payment_id,
      businessName: command.business_name,
      amountCentavos: command.amount_centavos,
      token: seen.token,
      correlationId: seen.correlationId,
    });
    return uow.once(context, async (tx) => {
      // Locked: the detector cannot settle or close it between this check and the supersede.
      const current = await openRequestOrRefuse(tx.manager, command.payment_id, { forUpdate: true });
      if (current.expiresAt.getTime() <= Date.now()) throw windowPassed();
      // Another change got in since: this one's request would replace a request its caller never saw.
      if (current.reference !== seen.reference)
        throw new CommandError('SERVICE_UNAVAILABLE', 'O pedido de pagamento mudou. Tente novamente.');
      await tx.manager.update(
        PaymentRequestEntity,
        { reference: current.reference, status: 'open' },
        { status: 'superseded' },
      );
      await tx.manager.insert(PaymentRequestEntity, request);
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
  };
}
