import { pixChargeClosed } from '@gateway/contracts';
import type { UnitOfWork } from '@gateway/messaging';
import type { Logger } from '@gateway/observability';
import type { DataSource } from 'typeorm';
import type { Cob } from '../../clients/psp/cob';
import {
  failChargeUnknownAtPsp,
  markChargeKnownAtPsp,
  markChargeUnknownAtPsp,
} from '../../persistence/charge-store';
import { unpaidPixOf } from '../../persistence/received-pix-store';

export interface UnknownChargeDeps {
  dataSource: DataSource;
  uow: UnitOfWork;
  logger: Logger;
  /** How long the PSP may not know an active charge before it is failed (PSP_UNKNOWN_CHARGE_GRACE_SECONDS). */
  unknownChargeGraceSeconds: number;
}

/** The closure's detail: the payment fails with "O pagamento foi recusado pela rede: <this>." */
export const UNKNOWN_AT_PSP_DETAIL = 'cobrança desconhecida no PSP';

/**
 * What a pass that re-read an active charge at the PSP makes of the answer. A charge the PSP does not know (it lost or
 * never kept it) cannot be paid, since a payer's bank finds it at the PSP: it is logged once, when first seen so, and
 * once the PSP has not known it for the grace period (a PSP that answered 404 for a moment knows it again by then) it
 * fails through the normal closure, `pix.charge.closed` with reason `failed`, so its payment fails with that reason
 * and the passes stop asking about it. A charge the PSP knows again is logged once too.
 */
export async function notePspKnowledgeOfCharge(
  deps: UnknownChargeDeps,
  txid: string,
  read: Cob | 'missing' | 'unavailable',
): Promise<void> {
  const { dataSource, uow, logger, unknownChargeGraceSeconds } = deps;
  if (read === 'unavailable') return;
  if (read !== 'missing') {
    if (await markChargeKnownAtPsp(dataSource.manager, txid))
      logger.info({ txid }, 'charge known at the PSP again');
    return;
  }
  if (await markChargeUnknownAtPsp(dataSource.manager, txid))
    logger.warn(
      { txid, fails_after_seconds: unknownChargeGraceSeconds },
      'charge unknown at the PSP: it fails if the PSP still does not know it then',
    );
  await uow.run({}, async (tx) => {
    const paymentId = await failChargeUnknownAtPsp(tx.manager, txid, unknownChargeGraceSeconds);
    if (paymentId === undefined) return;
    await tx.emit(pixChargeClosed, {
      payment_id: paymentId,
      txid,
      reason: 'failed',
      detail: UNKNOWN_AT_PSP_DETAIL,
      received_pix: await unpaidPixOf(tx.manager, txid),
    });
    logger.info({ txid, payment_id: paymentId }, 'charge unknown at the PSP failed');
  });
}
