import type { DataSource } from 'typeorm';
import type { Logger } from '@gateway/observability';
import { BatchTask } from '@gateway/service-runtime';
import { findReservation, markReservation, unconfirmedReservations } from '../persistence';
import { recordJournalPosted } from './shared/ledger-metrics';
import { releaseHeldReservation } from './shared/release-held-reservation';

export interface ReservationSweepOptions {
  /** How old a reservation no refund outcome has reached must be before the payment service is asked about it. */
  confirmAfterMs: number;
  intervalMs: number;
  logger: Logger;
  batchSize?: number;
  /** The clock (tests move it). */
  now?: () => Date;
}

/**
 * Asks the payment service whether its refund exists; a refund that does not is made never to exist by the same
 * question (the payment service gives its id up), so its reservation may be released.
 */
export type RefundExists = (reservation: { refundId: string; paymentId: string }) => Promise<boolean>;

/**
 * Releases the reservations whose refund never came to exist (the payment service stopped between reserving and
 * opening the refund): every reservation still `held` `confirmAfterMs` after it was made is asked about; an existing
 * refund confirms it (its outcome will resolve it), a missing one releases it where it came from. A payment service
 * that does not answer is asked again at the next pass.
 */
export class ReservationSweep extends BatchTask {
  private readonly now: () => Date;

  constructor(
    private readonly dataSource: DataSource,
    private readonly refundExists: RefundExists,
    private readonly options: ReservationSweepOptions,
  ) {
    super('reservation-sweep', options);
    this.now = options.now ?? (() => new Date());
  }

  /** How many reservations it resolved (confirmed or released). */
  async runOnce(): Promise<number> {
    const before = new Date(this.now().getTime() - this.options.confirmAfterMs);
    const due = await unconfirmedReservations(this.dataSource.manager, before, this.batchSize);
    let resolved = 0;
    for (const candidate of due) {
      let exists: boolean;
      try {
        exists = await this.refundExists({ refundId: candidate.id, paymentId: candidate.paymentId });
      } catch (err) {
        this.options.logger.warn(
          { err, reservation_id: candidate.id },
          'refund reservation not checked: will ask again',
        );
        continue;
      }
      const released = await this.dataSource.transaction(async (manager) => {
        const reservation = await findReservation(manager, candidate.id, { lock: true });
        // Resolved meanwhile (its refund's outcome arrived, or the payment service released it).
        if (!reservation || reservation.status !== 'held') return false;
        if (exists) {
          await markReservation(manager, reservation.id, 'confirmed');
          return false;
        }
        return releaseHeldReservation(manager, reservation);
      });
      resolved += 1;
      if (released) {
        recordJournalPosted('release');
        this.options.logger.warn(
          { reservation_id: candidate.id, payment_id: candidate.paymentId },
          'reservation of a refund that was never opened released',
        );
      }
    }
    return resolved;
  }
}
