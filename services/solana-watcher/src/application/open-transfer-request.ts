import type { DataSource } from 'typeorm';
import type { CryptoRequest, OpenCryptoRequest } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { activeTraceHeaders } from '@gateway/observability';
import { insertRequest, latestRequest, lockRequestsOfPayment } from '../persistence';
import type { RequestIssuer } from './request-issuer';
import { refusal } from './shared/request-refusals';

export interface OpenRequestDependencies {
  dataSource: DataSource;
  uow: UnitOfWork;
  issuer: RequestIssuer;
}

/**
 * Opens the payment's transfer request. Opening a payment that already has an open request returns that one, so a
 * caller retrying with a new message id still gets a single reference. The quote is locked (possibly over HTTP)
 * before the short transaction that stores the request, never inside it.
 */
export async function openTransferRequest(
  { dataSource, uow, issuer }: OpenRequestDependencies,
  command: OpenCryptoRequest,
  context: MessageContext,
): Promise<CryptoRequest> {
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
    await lockRequestsOfPayment(tx.manager, command.payment_id);
    const latest = await latestRequest(tx.manager, command.payment_id);
    if (latest?.status === 'open') return issuer.describe(latest);
    if (latest) throw refusal(latest);
    if (!prepared) throw new Error(`the request of ${command.payment_id} vanished`);
    await insertRequest(tx.manager, prepared);
    context.logger.info({ payment_id: command.payment_id, reference: prepared.reference }, 'request opened');
    return issuer.describe(prepared);
  });
}
