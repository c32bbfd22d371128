import type { EntityManager } from 'typeorm';
import { CommandError } from '@gateway/messaging';
import { latestRequest, type PaymentRequestEntity } from '../../persistence';

/** The payment's open request, or the refusal a command on a payment without one gets. */
export async function openRequestOrRefuse(
  manager: EntityManager,
  paymentId: string,
  options: { forUpdate?: boolean } = {},
): Promise<PaymentRequestEntity> {
  const latest = await latestRequest(manager, paymentId, options);
  if (!latest) throw new CommandError('NOT_FOUND', 'Pagamento em cripto não encontrado.');
  if (latest.status !== 'open') throw refusal(latest);
  return latest;
}

export function refusal(request: PaymentRequestEntity): CommandError {
  return new CommandError(
    'INVALID_STATUS',
    `O pedido de pagamento em cripto não está aberto (status: ${request.status}).`,
  );
}
