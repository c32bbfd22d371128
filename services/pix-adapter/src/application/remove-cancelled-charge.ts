import type { DataSource } from 'typeorm';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { counter } from '@gateway/observability';
import { ChargeEntity } from '../persistence';
import { endActiveCharge } from '../persistence/charge-store';
import type { ChargePsp } from '../clients/psp/psp-accounts';
import type { Cob } from '../clients/psp/cob';
import { PspError, isPspRefusal } from '../clients/psp/psp-error';
import { pspFailure } from '../clients/psp/psp-failure';
import { applyListedPix } from './shared/record-received-pix';

export interface RemoveCancelledChargeDeps {
  dataSource: DataSource;
  uow: UnitOfWork;
  psp: Pick<ChargePsp, 'removeCharge'>;
}

/** What the removal needs of its message, when a message asks for it (a recurrence's end asks without one). */
type RemovalContext = Pick<MessageContext, 'logger'> & { envelope?: MessageContext['envelope'] };

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
export async function removeCancelledCharge(
  deps: RemoveCancelledChargeDeps,
  paymentId: string,
  context: RemovalContext,
): Promise<void> {
  const charge = await deps.dataSource.manager.findOneBy(ChargeEntity, { paymentId });
  if (!charge || charge.status !== 'active') {
    context.logger.info(
      { payment_id: paymentId, charge: charge?.status ?? null },
      'cancelled payment has no active PIX charge: nothing to remove',
    );
    return;
  }
  const cob = await removeAtPsp(deps.psp, charge.txid, context);
  if (cob === 'refused') return;
  const { envelope, logger } = context;
  const ids =
    envelope === undefined ? {} : { correlationId: envelope.correlation_id, causationId: envelope.id };
  await deps.uow.run(ids, async (tx) => {
    if (cob !== 'missing') await applyListedPix(tx, cob, 'poll', logger);
    const removed = await endActiveCharge(tx.manager, charge.txid, 'cancelled');
    logger.info(
      {
        txid: charge.txid,
        payment_id: paymentId,
        cob: cob === 'missing' ? null : cob.status,
        removed,
      },
      'PIX charge of a cancelled payment removed',
    );
  });
}

async function removeAtPsp(
  psp: Pick<ChargePsp, 'removeCharge'>,
  txid: string,
  context: RemovalContext,
): Promise<Cob | 'missing' | 'refused'> {
  try {
    return await psp.removeCharge(txid);
  } catch (err) {
    if (err instanceof PspError && err.kind === 'not_found') {
      context.logger.warn({ txid }, 'cob of a cancelled payment unknown at the PSP');
      return 'missing';
    }
    if (isPspRefusal(err)) {
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
