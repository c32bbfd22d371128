import type { DataSource } from 'typeorm';
import type { PixReceivedOnCharge } from '@gateway/contracts';
import { CommandError, type UnitOfWork } from '@gateway/messaging';
import type { Logger } from '@gateway/observability';
import { ChargeEntity } from '../persistence';
import { unpaidPixOf } from '../persistence/received-pix-store';
import type { ChargePsp } from '../clients/psp/psp-accounts';
import type { Cob } from '../clients/psp/cob';
import { readCob } from '../clients/psp/read-cob';
import { applyListedPix } from './shared/record-received-pix';
import { notePspKnowledgeOfCharge, type UnknownChargeDeps } from './shared/charge-unknown-at-psp';

export interface ChargeStatusDeps extends UnknownChargeDeps {
  dataSource: DataSource;
  uow: UnitOfWork;
  psp: ChargePsp;
  logger: Logger;
}

export interface ChargeStatusRead {
  /** The charge as stored once the PIX the PSP lists are applied. */
  charge: ChargeEntity;
  /** The cob as the PSP has it now; null when the PSP could not be asked or does not know it. */
  cob: Cob | null;
  /** The PIX the charge took without being paid by them. */
  unpaid: PixReceivedOnCharge[];
}

/**
 * What the PSP says of a payment's charge now (the payment service's reconciliation asks): the cob is re-read
 * outside any transaction and the PIX it lists are applied as a callback's would be (each once; every one is also
 * reported with pix.charge.paid.v1). Without the PSP the charge is read as recorded; one the PSP does not know is
 * noted (and failed past the grace period) by `notePspKnowledgeOfCharge`.
 */
export async function readChargeStatus(deps: ChargeStatusDeps, paymentId: string): Promise<ChargeStatusRead> {
  const { dataSource, uow, psp, logger } = deps;
  const known = await dataSource.manager.findOneBy(ChargeEntity, { paymentId });
  if (!known) throw new CommandError('NOT_FOUND', 'Cobrança PIX não encontrada.');
  const read = await readCob(psp, known.txid, logger);
  if (known.status === 'active') await notePspKnowledgeOfCharge(deps, known.txid, read);
  const cob = typeof read === 'string' ? null : read;
  if (cob?.pix?.length) await uow.run({}, (tx) => applyListedPix(tx, cob, 'poll', logger));
  const charge = await dataSource.manager.findOneByOrFail(ChargeEntity, { txid: known.txid });
  const unpaid = await unpaidPixOf(dataSource.manager, charge.txid);
  return { charge, cob, unpaid };
}
