import {
  newPublicId,
  payoutRequested,
  type CreatePayout,
  type PayoutDestination,
  type PayoutRecord,
} from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import { decidePayout, toPayoutRecord } from '../domain/payout';
import { payoutRequestedPosting } from '../domain/posting-rules';
import {
  claimJournal,
  findPayoutAccount,
  insertEntries,
  insertPayout,
  lockAvailable,
  reserveAvailable,
  type PayoutAccountEntity,
} from '../persistence';
import { recordJournalPosted } from './shared/ledger-metrics';

const destinationOf = (account: PayoutAccountEntity): PayoutDestination => ({
  pix_key: account.pixKey,
  pix_key_type: account.pixKeyType,
  holder_document: account.holderDocument,
});

/**
 * `ledger.payout.create.v1`: in one transaction, the business's available money reserved for the payout (only while
 * `available` covers it, under the balance row's lock, so racing payouts and refunds are decided one after the other),
 * its `payout:<id>:requested` journal, the payout with the payout account as it is now, and `payout.requested.v1` for
 * the PIX adapter. Once per command (inbox): a repeated request answers the payout it made, never a second one.
 */
export function reservePayout(
  uow: UnitOfWork,
  command: CreatePayout,
  context: MessageContext,
): Promise<PayoutRecord> {
  return uow.once(context, async (tx) => {
    const businessId = command.business_id;
    const account = await findPayoutAccount(tx.manager, businessId);
    const decision = decidePayout({
      requestedCentavos: command.amount_centavos ?? null,
      account: account && destinationOf(account),
      availableCentavos: account ? await lockAvailable(tx.manager, businessId) : null,
    });
    if (!decision.ok) throw new CommandError(decision.code, decision.message);
    const amountCentavos = decision.amountCentavos;
    const payoutId = newPublicId('po');
    const posting = payoutRequestedPosting({ payoutId, businessId, amountCentavos });
    const journalId = await claimJournal(tx.manager, {
      causeKey: posting.causeKey,
      kind: 'payout',
      businessId,
    });
    if (journalId === null) throw new Error(`payout ${payoutId}: its reservation is posted already`);
    // The database's word on the reservation, whatever was read above.
    if (!(await reserveAvailable(tx.manager, businessId, amountCentavos)))
      throw new CommandError('INSUFFICIENT_BALANCE', 'O saldo disponível não cobre o saque.');
    await insertEntries(tx.manager, journalId, posting.lines);
    const destination = destinationOf(account!);
    const payout = await insertPayout(tx.manager, {
      id: payoutId,
      businessId,
      amountCentavos,
      requestId: context.envelope.id,
      destination,
    });
    await tx.emit(payoutRequested, {
      payout_id: payoutId,
      business_id: businessId,
      amount_centavos: amountCentavos,
      destination,
      requested_at: payout.createdAt.toISOString(),
    });
    tx.afterCommit(() => recordJournalPosted('payout'));
    return toPayoutRecord(payout);
  });
}
