import type { DataSource } from 'typeorm';
import type { UnitOfWork } from '@gateway/messaging';
import { counter, type Logger } from '@gateway/observability';
import type { ReceivedPixOutcome } from '../domain/received-pix';
import { ChargeEntity, PixRefundEntity } from '../persistence';
import type { ChargePsp } from '../clients/psp/psp-accounts';
import type { PspCallbackItem } from '../clients/psp/callback';
import { applyConfirmedPix, confirmedPix, recordUnverifiedPix } from './shared/record-received-pix';
import { followDevolucao } from './shared/settle-pix-refund';
import { followMed, isMedDevolucao, noteMedOfUnknownCharge } from './shared/follow-med';

export interface CallbackProcessorDeps {
  dataSource: DataSource;
  uow: UnitOfWork;
  psp: ChargePsp;
  logger: Logger;
}

const devolucoesReported = counter(
  'pix_devolucoes_reported_total',
  'Refunds of received PIX (devolucoes) the PSP reported in a callback, by status',
  ['status'],
);

/**
 * A callback item is only a trigger: the PIX counts once the PSP itself lists it on the cob (`GET /cob/{txid}`),
 * with the amount the PSP states. A PSP failure propagates so the callback is answered 5xx and sent again.
 */
export class CallbackProcessor {
  constructor(private readonly deps: CallbackProcessorDeps) {}

  /**
   * `accountId`: the business's own PSP account whose webhook the callback came to; null: the platform's. A callback
   * only speaks for the charges opened at its own account: one about another account's charge is not trusted.
   */
  async process(items: PspCallbackItem[], accountId: string | null = null): Promise<ReceivedPixOutcome[]> {
    const outcomes: ReceivedPixOutcome[] = [];
    for (const item of items) {
      // A Pix reported again with its devoluções is the same Pix: applied once by endToEndId, never a new payment.
      outcomes.push(await this.processItem(item, accountId));
      await this.followDevolucoes(item);
    }
    return outcomes;
  }

  /**
   * The PSP calls back with a Pix's `devolucoes` when one of its refunds ends, and when a MED appears or ends. A MED one
   * (natureza MED_*, which nobody of ours asked for) is re-read at the PSP and reported to the payment service, which
   * makes it a dispute; a PSP failure then propagates so the callback is sent again. Each final one that is a refund of
   * ours still open is re-read at the PSP (`GET /pix/{e2eid}/devolucao/{id}`, the callback being only a trigger) and
   * settled as it says; others (made outside the gateway, or settled already) are only counted.
   */
  private async followDevolucoes(item: PspCallbackItem): Promise<void> {
    const { dataSource, logger } = this.deps;
    for (const devolucao of item.devolucoes) {
      devolucoesReported.inc({ status: devolucao.status });
      if (isMedDevolucao(devolucao)) {
        const charge = await dataSource.manager.findOneBy(ChargeEntity, { txid: item.txid });
        if (charge) await followMed(this.deps, charge.paymentId, item.endToEndId, devolucao.id);
        else noteMedOfUnknownCharge(logger, item.endToEndId, devolucao.id);
        continue;
      }
      if (devolucao.status === 'EM_PROCESSAMENTO') continue;
      const refund = await dataSource.manager.findOneBy(PixRefundEntity, {
        devolucaoId: devolucao.id,
        endToEndId: item.endToEndId,
      });
      if (refund?.status !== 'requested' && refund?.status !== 'processing') {
        logger.info(
          { end_to_end_id: item.endToEndId, devolucao_id: devolucao.id, refund: refund?.status ?? null },
          'PSP reported a devolução with no open refund',
        );
        continue;
      }
      try {
        await followDevolucao(this.deps, refund);
      } catch (err) {
        // The callback is only a trigger: the devolução poll follows this refund, and the batch's other items go on.
        logger.warn(
          { err: String(err), end_to_end_id: item.endToEndId, devolucao_id: devolucao.id },
          'devolução reported by the PSP could not be followed now',
        );
      }
    }
  }

  private async processItem(item: PspCallbackItem, accountId: string | null): Promise<ReceivedPixOutcome> {
    const { dataSource, uow, psp, logger } = this.deps;
    const charge = await dataSource.manager.findOneBy(ChargeEntity, { txid: item.txid });
    // The cob is then read back from the charge's own account, the one this callback came from.
    if (!charge || charge.pspAccountId !== accountId) {
      await recordUnverifiedPix(dataSource.manager, item, 'unknown_txid', logger);
      return 'unknown_txid';
    }
    const cob = await psp.getCharge(item.txid);
    const listed = cob.pix?.find((pix) => pix.endToEndId === item.endToEndId);
    if (!listed) {
      await recordUnverifiedPix(dataSource.manager, item, 'unconfirmed', logger);
      return 'unconfirmed';
    }
    return uow.run({}, (tx) =>
      applyConfirmedPix(tx, confirmedPix(cob, listed), cob.status === 'CONCLUIDA', 'callback', logger),
    );
  }
}
