import type { EntityManager } from 'typeorm';
import { CommandError } from '@gateway/messaging';
import { ChargeEntity } from '../../persistence';
import { pspFailure } from '../../clients/psp/psp-failure';

/** The refusal of a command on a charge that is no longer active: `status` is its status, or where it ended. */
export const chargeNotActive = (status: string): CommandError =>
  new CommandError('INVALID_STATUS', `Operação não permitida: a cobrança PIX está com status ${status}.`);

/** The charge of a payment, in whatever status: NOT_FOUND without one. */
export async function chargeOf(manager: EntityManager, paymentId: string): Promise<ChargeEntity> {
  const charge = await manager.findOneBy(ChargeEntity, { paymentId });
  if (!charge) throw new CommandError('NOT_FOUND', 'Cobrança PIX não encontrada.');
  return charge;
}

/** The charge of a payment, for a command that changes it: NOT_FOUND without one, refused once it is not active. */
export async function activeChargeOf(manager: EntityManager, paymentId: string): Promise<ChargeEntity> {
  const charge = await chargeOf(manager, paymentId);
  if (charge.status !== 'active') throw chargeNotActive(charge.status);
  return charge;
}

/** A PSP failure of a call that changes the cob: the PSP refusing it means the cob has ended there. */
export const cobChangeFailure = (error: unknown): never =>
  pspFailure(error, chargeNotActive('encerrada no PSP'));
