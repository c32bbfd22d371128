import type { DataSource } from 'typeorm';
import type { UnitOfWork } from '@gateway/messaging';
import { counter, type Logger } from '@gateway/observability';
import { pixAmountToCentavos } from '../domain/amount';
import { ChargeEntity } from '../persistence';
import type { ApiPixClient } from '../psp/api-pix-client';
import type { PspCallbackItem } from '../psp/callback';
import { applyConfirmedPix, recordUnverifiedPix, type ReceivedPixOutcome } from '../received-pix';

export interface CallbackProcessorDeps {
  dataSource: DataSource;
  uow: UnitOfWork;
  psp: ApiPixClient;
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

  async process(items: PspCallbackItem[]): Promise<ReceivedPixOutcome[]> {
    const outcomes: ReceivedPixOutcome[] = [];
    for (const item of items) {
      outcomes.push(await this.processItem(item));
      this.noteDevolucoes(item);
    }
    return outcomes;
  }

  /**
   * The PSP calls back with a Pix's `devolucoes` when one of its refunds ends. The gateway asks for no refund yet,
   * so there is nothing of ours to update: they are logged and counted, not passed on. Refunds, when they come,
   * follow each devolução by `GET /pix/{e2eid}/devolucao/{id}` and take this callback as their trigger.
   */
  private noteDevolucoes(item: PspCallbackItem): void {
    for (const devolucao of item.devolucoes) {
      devolucoesReported.inc({ status: devolucao.status });
      this.deps.logger.info(
        { end_to_end_id: item.endToEndId, devolucao_id: devolucao.id, status: devolucao.status },
        'PSP reported a devolução of a received PIX',
      );
    }
  }

  private async processItem(item: PspCallbackItem): Promise<ReceivedPixOutcome> {
    const { dataSource, uow, psp, logger } = this.deps;
    const charge = await dataSource.manager.findOneBy(ChargeEntity, { txid: item.txid });
    if (!charge) {
      await recordUnverifiedPix(dataSource.manager, item, 'unknown_txid', logger);
      return 'unknown_txid';
    }
    const cob = await psp.getCharge(item.txid);
    const listed = cob.pix?.find((pix) => pix.endToEndId === item.endToEndId);
    if (!listed) {
      await recordUnverifiedPix(dataSource.manager, item, 'unconfirmed', logger);
      return 'unconfirmed';
    }
    const confirmed = {
      endToEndId: listed.endToEndId,
      txid: cob.txid,
      valorCentavos: pixAmountToCentavos(listed.valor),
      horario: listed.horario,
    };
    return uow.run({}, (tx) =>
      applyConfirmedPix(tx, confirmed, cob.status === 'CONCLUIDA', 'callback', logger),
    );
  }
}
