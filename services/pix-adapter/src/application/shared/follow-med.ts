import { medNatures, pixMedReported, type MedNature, type PixMedReported } from '@gateway/contracts';
import type { DataSource } from 'typeorm';
import type { Transaction, UnitOfWork } from '@gateway/messaging';
import { counter, type Logger } from '@gateway/observability';
import { pixAmountToCentavos } from '../../domain/amount';
import { recordMedStatus } from '../../persistence/med-store';
import { ChargeEntity } from '../../persistence';
import type { ListedPix } from '../../clients/psp/pix-lists';
import type { ApiPixClient } from '../../clients/psp/api-pix-client';
import type { PixDevolucao } from '../../clients/psp/devolucao';

export interface MedDeps {
  uow: UnitOfWork;
  psp: Pick<ApiPixClient, 'getDevolucao'>;
  logger: Logger;
}

const medsReported = counter(
  'pix_med_devolucoes_total',
  'MED devoluções (natureza MED_*) the PSP listed on a Pix, by what became of them: reported (a status told the ' +
    'payment service), unknown_charge (on no charge of ours)',
  ['outcome'],
);

/** Whether a devolução is a MED one: the payer's bank claims the Pix back, nobody of ours asked for it. */
export function isMedDevolucao(devolucao: PixDevolucao): devolucao is PixDevolucao & { natureza: MedNature } {
  return (medNatures as readonly string[]).includes(devolucao.natureza ?? 'ORIGINAL');
}

/** Counts a MED listed on a Pix that no charge of ours received: nothing to dispute, an operator looks. */
export function noteMedOfUnknownCharge(logger: Logger, endToEndId: string, devolucaoId: string): void {
  medsReported.inc({ outcome: 'unknown_charge' });
  logger.warn({ end_to_end_id: endToEndId, devolucao_id: devolucaoId }, 'MED on a Pix of no charge of ours');
}

/**
 * Keeps what the PSP says of a MED devolução and tells the payment service (`pix.med.reported.v1`) in the same
 * transaction, once per status: a repeat (a callback sent again, the poll meeting what a callback applied) changes
 * nothing and tells nothing.
 */
export async function applyMedDevolucao(
  tx: Transaction,
  paymentId: string,
  endToEndId: string,
  devolucao: PixDevolucao & { natureza: MedNature },
): Promise<boolean> {
  const med: PixMedReported = {
    payment_id: paymentId,
    end_to_end_id: endToEndId,
    devolucao_id: devolucao.id,
    amount_centavos: pixAmountToCentavos(devolucao.valor),
    natureza: devolucao.natureza,
    status: devolucao.status,
    motivo: devolucao.motivo?.slice(0, 500) ?? null,
  };
  if (!(await recordMedStatus(tx.manager, med))) return false;
  await tx.emit(pixMedReported, med);
  tx.afterCommit(() => medsReported.inc({ outcome: 'reported' }));
  return true;
}

/**
 * Re-reads a MED devolução at the PSP (`GET /pix/{e2eid}/devolucao/{id}`: a callback is only a trigger) and applies
 * what it says now. A PSP failure propagates: the caller's retry (the callback sent again, the poll) follows it.
 */
export async function followMed(
  deps: MedDeps,
  paymentId: string,
  endToEndId: string,
  devolucaoId: string,
): Promise<void> {
  const devolucao = await deps.psp.getDevolucao(endToEndId, devolucaoId);
  if (!isMedDevolucao(devolucao)) {
    deps.logger.warn({ end_to_end_id: endToEndId, devolucao_id: devolucaoId }, 'MED no longer listed as one');
    return;
  }
  const told = await deps.uow.run({}, (tx) => applyMedDevolucao(tx, paymentId, endToEndId, devolucao));
  if (told)
    deps.logger.info(
      { payment_id: paymentId, devolucao_id: devolucaoId, status: devolucao.status },
      'MED devolução reported',
    );
}

/**
 * Applies every MED devolução the PSP lists on a Pix of a charge of ours (a page of `GET /pix`), as its callback would
 * have: one already known with the same status changes nothing. Answers how many were reported.
 */
export async function reportListedMeds(
  deps: { dataSource: DataSource; uow: UnitOfWork },
  listed: readonly ListedPix[],
): Promise<number> {
  let reported = 0;
  for (const pix of listed) {
    const meds = pix.devolucoes.filter(isMedDevolucao);
    if (meds.length === 0 || pix.txid === null) continue;
    const charge = await deps.dataSource.manager.findOneBy(ChargeEntity, { txid: pix.txid });
    if (!charge) continue;
    for (const med of meds)
      if (await deps.uow.run({}, (tx) => applyMedDevolucao(tx, charge.paymentId, pix.endToEndId, med)))
        reported += 1;
  }
  return reported;
}
