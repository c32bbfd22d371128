import type { DataSource } from 'typeorm';
import type { CryptoRequest, OpenCryptoRequest } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { activeTraceHeaders } from '@gateway/observability';
import { PaymentRequestEntity } from '../persistence';
import { latestRequest, refusal } from '../requests/open-request';
import type { RequestIssuer } from '../requests/request-issuer';

/**
 * Opens the payment's transfer request. Opening a payment that already has an open request returns that one, so a
 * caller retrying with a new message id still gets a single reference. The quote is locked (possibly over HTTP)
 * before the short transaction that stores the request, never inside it.
 */
export function handleOpenCryptoRequest(dataSource: DataSource, uow: UnitOfWork, issuer: RequestIssuer) {
  return async (command: OpenCryptoRequest, context: MessageContext): Promise<CryptoRequest> => {
    const known = await latestRequest(dataSource.manager, command.payment_id);
    const prepared = known
      ? null
      : await issuer.prepare({
          paymentId: command.payment_id,
          businessName: command.business_name,
          amountCentavos: command.amount_centavos,
          token: command.token,
          correlationId: context.envelope.correlation_id,
          traceContext: activeTraceHeaders(),
        });
    return uow.once(context, async (tx) => {
      // Serialises concurrent opens of one payment: the second sees the first's request.
      await tx.manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [command.payment_id]);
      const latest = await latestRequest(tx.manager, command.payment_id);
      if (latest?.status === 'open') return issuer.describe(latest);
      if (latest) throw refusal(latest);
      if (!prepared) throw new Error(`the request of ${command.payment_id} vanished`);
      await tx.manager.insert(PaymentRequestEntity, prepared);
      context.logger.info(
        { payment_id: command.payment_id, reference: prepared.reference },
        'request opened',
      );
      return issuer.describe(prepared);
    });
  };
}
