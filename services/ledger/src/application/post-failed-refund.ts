import type { DataSource } from 'typeorm';
import type { RefundEventPayload } from '@gateway/contracts';
import { findReservation } from '../persistence';
import { recordJournalPosted } from './shared/ledger-metrics';
import { releaseHeldReservation } from './shared/release-held-reservation';

/**
 * `refund.failed.v1`: the money never left, so the refund's reservation goes back where it came from (its
 * `release:<id>` journal, no balance transaction). Once: a redelivery finds it released. A refund opened before
 * refunds reserved moved nothing, and its failure moves nothing either.
 */
export async function postFailedRefund(
  dataSource: DataSource,
  event: RefundEventPayload,
): Promise<{ posted: boolean }> {
  const posted = await dataSource.transaction(async (manager) => {
    const reservation = await findReservation(manager, event.refund.refund_id, { lock: true });
    return reservation ? releaseHeldReservation(manager, reservation) : false;
  });
  if (posted) recordJournalPosted('release', new Date(event.occurred_at));
  return { posted };
}
