import type { DataSource } from 'typeorm';
import type { GetPixChargeStatus, PixChargeStatus } from '@gateway/contracts';
import { CommandError, type UnitOfWork } from '@gateway/messaging';
import type { Logger } from '@gateway/observability';
import { readCob } from '../cob-reader';
import { pixAmountToCentavos } from '../domain/amount';
import { ChargeEntity } from '../persistence';
import type { ApiPixClient } from '../psp/api-pix-client';
import { applyListedPix, unpaidPixOf } from '../received-pix';

export interface ChargeStatusDeps {
  dataSource: DataSource;
  uow: UnitOfWork;
  psp: ApiPixClient;
  logger: Logger;
}

/**
 * What the PSP says of a payment's charge now (the payment service's reconciliation asks): the cob is re-read
 * outside any transaction and the PIX it lists are applied as a callback's would be (each once; every one is also
 * reported with pix.charge.paid.v1), then the charge is answered with those PIX and, if it ended unpaid, its closure.
 * Without the PSP the charge is answered as recorded.
 */
export function handleChargeStatus(deps: ChargeStatusDeps) {
  return async (command: GetPixChargeStatus): Promise<PixChargeStatus> => {
    const { dataSource, uow, psp, logger } = deps;
    const known = await dataSource.manager.findOneBy(ChargeEntity, { paymentId: command.payment_id });
    if (!known) throw new CommandError('NOT_FOUND', 'Cobrança PIX não encontrada.');
    const cob = await readCob(psp, known.txid, logger);
    const read = typeof cob === 'string' ? null : cob;
    if (read?.pix?.length) await uow.run({}, (tx) => applyListedPix(tx, read, 'poll', logger));
    const charge = await dataSource.manager.findOneByOrFail(ChargeEntity, { txid: known.txid });
    const unpaid = await unpaidPixOf(dataSource.manager, charge.txid);
    // The contract knows no `cancelled`: a removed cob is a charge that failed (its payment is final already).
    const status = charge.status === 'cancelled' ? 'failed' : charge.status;
    const ended = status === 'expired' || status === 'failed';
    return {
      txid: charge.txid,
      status,
      pix: (read?.pix ?? []).map((pix) => ({
        end_to_end_id: pix.endToEndId,
        amount_centavos: pixAmountToCentavos(pix.valor),
        paid_at: new Date(pix.horario).toISOString(),
      })),
      closure: ended
        ? {
            reason: status === 'failed' ? 'failed' : unpaid.length > 0 ? 'underpaid' : 'expired',
            detail: status === 'failed' ? (read?.status ?? null) : null,
            received_pix: unpaid,
          }
        : null,
    };
  };
}
