import type { DataSource } from 'typeorm';
import type { ReleaseReservation } from '@gateway/contracts';
import type { Logger } from '@gateway/observability';
import { findReservation } from '../persistence';
import { recordJournalPosted } from './shared/ledger-metrics';
import { releaseHeldReservation } from './shared/release-held-reservation';

/**
 * `ledger.reservation.release.v1`: the payment service reserved for a refund and then did not open it (its own rules
 * refused it): the money goes back where it came from, once. A reservation its refund confirmed is not released by
 * this (its refund's outcome resolves it), nor one unknown or resolved already.
 */
export async function releaseUnopenedRefund(
  deps: { dataSource: DataSource; logger: Logger },
  command: ReleaseReservation,
): Promise<{ released: boolean }> {
  const released = await deps.dataSource.transaction(async (manager) => {
    const reservation = await findReservation(manager, command.reservation_id, { lock: true });
    if (!reservation || reservation.status !== 'held') {
      if (reservation?.status === 'confirmed')
        deps.logger.warn({ reservation_id: command.reservation_id }, 'release of a confirmed refund refused');
      return false;
    }
    return releaseHeldReservation(manager, reservation);
  });
  if (released) recordJournalPosted('release');
  return { released };
}
