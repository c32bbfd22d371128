import type { ChangeCryptoRequestAmount, CryptoRequest } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { PaymentRequestEntity } from '../persistence';
import { openRequestOrRefuse } from '../requests/open-request';
import type { RequestIssuer } from '../requests/request-issuer';

/**
 * A new amount gets a new reference, link, QR code, quote and window; the previous request is superseded, and a
 * transfer still arriving on it is recorded as such.
 */
export function handleChangeCryptoRequestAmount(uow: UnitOfWork, issuer: RequestIssuer) {
  return (command: ChangeCryptoRequestAmount, context: MessageContext): Promise<CryptoRequest> =>
    uow.once(context, async (tx) => {
      // Locked: the detector cannot settle or close it between this check and the supersede.
      const current = await openRequestOrRefuse(tx.manager, command.payment_id, { forUpdate: true });
      await tx.manager.update(
        PaymentRequestEntity,
        { reference: current.reference, status: 'open' },
        { status: 'superseded' },
      );
      const request = await issuer.prepare({
        paymentId: command.payment_id,
        businessName: command.business_name,
        amountCentavos: command.amount_centavos,
        token: current.token,
        correlationId: current.correlationId,
      });
      await tx.manager.insert(PaymentRequestEntity, request);
      context.logger.info(
        { payment_id: command.payment_id, reference: request.reference, superseded: current.reference },
        'request amount changed',
      );
      return issuer.describe(request);
    });
}
