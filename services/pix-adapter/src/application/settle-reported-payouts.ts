import { counter } from '@gateway/observability';
import type { SentPix } from '../clients/psp/envio';
import { PayoutEntity } from '../persistence';
import { followPayout, originOf, rememberReportedFailure, type PayoutDeps } from './shared/settle-payout';

const sendsReported = counter(
  'pix_sends_reported_total',
  'Pix sent from the platform account that the PSP reported in a callback, by status',
  ['status'],
);

/**
 * The PSP's callback for sent Pix (`gnExtras.idEnvio`, on the payer key's webhook) is only a trigger: each send of an
 * open payout of ours is re-read at the PSP and settled as the PSP says, so a forged or stale callback settles
 * nothing the PSP does not report; the failure a callback tells is kept on the payout for that read (Efí's reads do not
 * tell it), whichever path settles it. A send we do not know, or a payout settled already, is only logged. A read that
 * fails is left to the payout poll, and the batch's other sends go on.
 */
export async function settleReportedPayouts(
  deps: PayoutDeps,
  reported: { sent: SentPix[]; rejected: string[] },
): Promise<void> {
  const { dataSource, logger } = deps;
  if (reported.rejected.length > 0)
    logger.warn({ rejected: reported.rejected }, 'PSP callback items about sent Pix rejected');
  for (const sent of reported.sent) {
    sendsReported.inc({ status: sent.status });
    const payout = await dataSource.manager.findOneBy(PayoutEntity, { idEnvio: sent.idEnvio });
    if (payout?.status !== 'requested' && payout?.status !== 'processing') {
      logger.info(
        { id_envio: sent.idEnvio, status: sent.status, payout: payout?.status ?? null },
        'PSP reported a sent Pix with no open payout',
      );
      continue;
    }
    try {
      if (sent.failure !== undefined) {
        const failure = sent.failure;
        await deps.uow.run(originOf(payout), (tx) => rememberReportedFailure(tx, payout.payoutId, failure));
      }
      if (!(await followPayout(deps, payout)))
        logger.warn(
          { payout_id: payout.payoutId, id_envio: sent.idEnvio, status: sent.status },
          'PSP callback told of a send the PSP does not have: ignored',
        );
    } catch (err) {
      logger.warn(
        { err: String(err), payout_id: payout.payoutId, id_envio: sent.idEnvio },
        'sent Pix reported by the PSP could not be read now',
      );
    }
  }
}
