import type { DataSource, EntityManager } from 'typeorm';
import type { CreateReservation, ReservationReply } from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import { reservationPosting, reservationSources, type Reservation } from '../domain/posting-rules';
import {
  claimJournal,
  findReservation,
  insertReservation,
  lockBalance,
  lockSettlementsOf,
  lockUnsettledSettlementsOf,
  takeFromSettlement,
  type StoredReservation,
} from '../persistence';
import { recordJournalPosted } from './shared/ledger-metrics';
import { writeJournal } from './shared/write-journal';

const insufficientBalance = () =>
  new CommandError(
    'INSUFFICIENT_BALANCE',
    'Saldo insuficiente para este reembolso: o valor excede o saldo disponível e a receber da empresa.',
  );

/**
 * `ledger.reservation.create.v1`: moves a refund's amount to the business's `reserved` balance before anything is
 * sent to a rail, or refuses with INSUFFICIENT_BALANCE when available + pending does not cover it
 * (docs/money-model.md#refunds). Answers `payment_not_posted` when the ledger has not posted the refunded payment yet
 * (its `payment.confirmed` is still on its way): the caller asks again shortly. Once per id: a second request answers
 * the first's outcome and moves nothing.
 *
 * Racing reservations (and payouts) of a business meet its balance row, locked: each sees what the one before took.
 * The settlements are locked first, in payment id order, as the settlement sweep locks them before the balance: usually
 * only the refunded payment's; when that and `available` do not cover the amount, the transaction starts again with
 * every waiting settlement of the business locked, so the other payments' pending money may be taken too.
 */
export async function reserveRefund(
  dataSource: DataSource,
  command: CreateReservation,
): Promise<ReservationReply> {
  const first = await dataSource.transaction((manager) => attempt(manager, command, 'own'));
  const outcome =
    first === 'needs-other-payments'
      ? await dataSource.transaction((manager) => attempt(manager, command, 'all'))
      : first;
  if (outcome === 'needs-other-payments') throw insufficientBalance();
  // Counted once committed.
  if (outcome.posted) recordJournalPosted('reservation');
  return outcome.reply;
}

type Attempt = { reply: ReservationReply; posted: boolean } | 'needs-other-payments';

async function attempt(
  manager: EntityManager,
  command: CreateReservation,
  scope: 'own' | 'all',
): Promise<Attempt> {
  const existing = await findReservation(manager, command.reservation_id, { lock: false });
  if (existing) return { reply: answer(existing, command), posted: false };
  const settlements =
    scope === 'own'
      ? await lockSettlementsOf(manager, [command.payment_id])
      : await lockUnsettledSettlementsOf(manager, command.business_id, command.payment_id);
  const own = settlements.find((settlement) => settlement.paymentId === command.payment_id);
  if (!own)
    return {
      reply: { reservation_id: command.reservation_id, outcome: 'payment_not_posted' },
      posted: false,
    };
  if (own.businessId !== command.business_id)
    throw new Error(`payment ${command.payment_id} is not business ${command.business_id}'s in the books`);
  const balance = await lockBalance(manager, command.business_id);
  // A delivery of the same command may have reserved while this one waited for the locks: its reservation is the
  // answer, not a refusal computed against the balance it reduced.
  const reserved = await findReservation(manager, command.reservation_id, { lock: false });
  if (reserved) return { reply: answer(reserved, command), posted: false };
  const ownRemainder = own.settled ? null : own;
  const sources = reservationSources(
    command.amount_centavos,
    ownRemainder,
    balance.availableCentavos,
    settlements.filter((settlement) => !settlement.settled),
  );
  if (!sources) {
    const othersPending = balance.pendingCentavos - (ownRemainder?.remainingCentavos ?? 0);
    if (scope === 'own' && othersPending > 0) return 'needs-other-payments';
    throw insufficientBalance();
  }
  const reservation: Reservation = {
    id: command.reservation_id,
    businessId: command.business_id,
    paymentId: command.payment_id,
    amountCentavos: command.amount_centavos,
    ...sources,
  };
  // A concurrent request under the same id took it first (this one waited for it): its outcome is the answer.
  if (!(await insertReservation(manager, reservation))) {
    const taken = await findReservation(manager, command.reservation_id, { lock: false });
    if (!taken) throw new Error(`reservation ${command.reservation_id} neither new nor found`);
    return { reply: answer(taken, command), posted: false };
  }
  const posting = reservationPosting(reservation);
  const journalId = await claimJournal(manager, {
    causeKey: posting.causeKey,
    kind: posting.kind,
    businessId: reservation.businessId,
  });
  if (journalId === null) throw new Error(`reservation ${reservation.id} journal exists without its row`);
  await writeJournal(manager, journalId, posting);
  for (const part of reservation.fromPending)
    await takeFromSettlement(manager, part.payment_id, part.centavos);
  return { reply: { reservation_id: reservation.id, outcome: 'reserved' }, posted: true };
}

/** A reservation under the id exists: the same request again answers its outcome; another one under it is a defect. */
function answer(existing: StoredReservation, command: CreateReservation): ReservationReply {
  if (
    existing.businessId !== command.business_id ||
    existing.paymentId !== command.payment_id ||
    existing.amountCentavos !== command.amount_centavos
  )
    throw new Error(`reservation ${command.reservation_id} exists with other terms`);
  return {
    reservation_id: existing.id,
    outcome: existing.status === 'released' ? 'released' : 'reserved',
  };
}
