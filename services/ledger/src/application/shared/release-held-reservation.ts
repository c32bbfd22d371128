import type { EntityManager } from 'typeorm';
import { releasePosting, releaseReturns } from '../../domain/posting-rules';
import {
  claimJournal,
  giveBackToSettlement,
  lockBalance,
  lockSettlementsOf,
  markReservation,
  type StoredReservation,
} from '../../persistence';
import { writeJournal } from './write-journal';

/**
 * Gives a reservation back, in the caller's transaction, with the reservation's row locked by the caller: its
 * `release:<id>` journal returns each part where it came from (`releaseReturns`), the pending parts to their
 * settlements' remainders, and the reservation is `released`. False (nothing written) when it is resolved already.
 */
export async function releaseHeldReservation(
  manager: EntityManager,
  reservation: StoredReservation,
): Promise<boolean> {
  if (reservation.status === 'released' || reservation.status === 'spent') return false;
  // Settlements before the balance, in payment id order, as everywhere.
  const settlements = await lockSettlementsOf(
    manager,
    reservation.fromPending.map((part) => part.payment_id),
  );
  await lockBalance(manager, reservation.businessId);
  const unsettled = new Set(settlements.filter((s) => !s.settled).map((s) => s.paymentId));
  const returns = releaseReturns(reservation, unsettled);
  const posting = releasePosting(reservation, returns);
  const journalId = await claimJournal(manager, {
    causeKey: posting.causeKey,
    kind: posting.kind,
    businessId: reservation.businessId,
  });
  if (journalId === null)
    throw new Error(`reservation ${reservation.id} released in the books but not marked so`);
  await writeJournal(manager, journalId, posting);
  for (const part of returns.toPending) await giveBackToSettlement(manager, part.payment_id, part.centavos);
  await markReservation(manager, reservation.id, 'released');
  return true;
}
