import type { DataSource } from 'typeorm';
import type { PaymentEventPayload } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { counter } from '@gateway/observability';
import { ChargeEntity } from '../persistence';
import type { ApiPixClient } from '../psp/api-pix-client';
import type { Cob } from '../psp/cob';
import { PspError } from '../psp/psp-error';
import { pspFailure } from '../psp-failure';
import { applyListedPix } from '../received-pix';

export interface PaymentCancelledDeps {
  dataSource: DataSource;
  uow: UnitOfWork;
  psp: ApiPixClient;
}

const removalsRefused = counter(
  'pix_charge_removals_refused_total',
  'Cobs of cancelled payments the PSP refused to remove while still ATIVA (the charge stays followed until it expires)',
);

/**
 * A cancelled PIX payment's cob is removed at the PSP (`PATCH /cob/{txid}` REMOVIDA_PELO_USUARIO_RECEBEDOR), outside
 * any transaction, then its charge ends `cancelled` so the sweeper and the poll leave it. A cob the PSP no longer
 * holds as ATIVA was paid meanwhile: the PIX it lists are applied first, like a callback's, so they are reported
 * (pix.charge.paid.v1) and the payment service records them as received funds. Only a charge still active is
 * touched, so a redelivery changes nothing. The PSP's unavailability is thrown for the broker to retry; a refusal of
 * a cob still ATIVA is logged and not retried: the charge then stays active and followed, so nothing paid is lost.
 */
export function handlePaymentCancelled(deps: PaymentCancelledDeps) {
  return async (event: PaymentEventPayload, context: MessageContext): Promise<void> => {
    const { payment } = event;
    // Crypto requests are closed by the watcher.
    if (payment.method !== 'pix') return;
    const charge = await deps.dataSource.manager.findOneBy(ChargeEntity, { paymentId: payment.payment_id });
    if (!charge || charge.status !== 'active') {
      context.logger.info(
        { payment_id: payment.payment_id, charge: charge?.status ?? null },
        'cancelled payment has no active PIX charge: nothing to remove',
      );
      return;
    }
    const cob = await removeAtPsp(deps.psp, charge.txid, context);
    if (cob === 'refused') return;
    const { envelope, logger } = context;
    await deps.uow.run({ correlationId: envelope.correlation_id, causationId: envelope.id }, async (tx) => {
      if (cob !== 'missing') await applyListedPix(tx, cob, 'poll', logger);
      const [, removed]: [unknown[], number] = await tx.manager.query(
        `UPDATE charges SET status = 'cancelled', updated_at = now() WHERE txid = $1 AND status = 'active'`,
        [charge.txid],
      );
      logger.info(
        {
          txid: charge.txid,
          payment_id: payment.payment_id,
          cob: cob === 'missing' ? null : cob.status,
          removed,
        },
        'PIX charge of a cancelled payment removed',
      );
    });
  };
}

async function removeAtPsp(
  psp: ApiPixClient,
  txid: string,
  context: MessageContext,
): Promise<Cob | 'missing' | 'refused'> {
  try {
    return await psp.removeCharge(txid);
  } catch (err) {
    if (err instanceof PspError && err.kind === 'not_found') {
      context.logger.warn({ txid }, 'cob of a cancelled payment unknown at the PSP');
      return 'missing';
    }
    if (err instanceof PspError && !err.retryable && err.kind !== 'unauthorized') {
      removalsRefused.inc();
      context.logger.error(
        { txid, status: err.status, detail: err.detail },
        'PSP refused to remove an active cob',
      );
      return 'refused';
    }
    return pspFailure(err);
  }
}
