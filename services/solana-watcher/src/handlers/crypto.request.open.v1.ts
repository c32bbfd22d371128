import type { CryptoRequest, OpenCryptoRequest } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { PaymentRequestEntity } from '../persistence';
import { latestRequest, refusal } from '../requests/open-request';
import type { RequestIssuer } from '../requests/request-issuer';

/**
 * Opens the payment's transfer request. Opening a payment that already has an open request returns that one, so a
 * caller retrying with a new message id still gets a single reference.
 */
export function handleOpenCryptoRequest(uow: UnitOfWork, issuer: RequestIssuer) {
  return (command: OpenCryptoRequest, context: MessageContext): Promise<CryptoRequest> =>
    uow.once(context, async (tx) => {
      const latest = await latestRequest(tx.manager, command.payment_id);
      if (latest?.status === 'open') return issuer.describe(latest);
      if (latest) throw refusal(latest);
      const request = await issuer.prepare({
        paymentId: command.payment_id,
        businessName: command.business_name,
        amountCentavos: command.amount_centavos,
        token: command.token,
        correlationId: context.envelope.correlation_id,
      });
      await tx.manager.insert(PaymentRequestEntity, request);
      context.logger.info({ payment_id: command.payment_id, reference: request.reference }, 'request opened');
      return issuer.describe(request);
    });
}
