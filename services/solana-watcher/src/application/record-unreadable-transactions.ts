import type { DataSource } from 'typeorm';
import type { UnitOfWork } from '@gateway/messaging';
import { counter, type Logger } from '@gateway/observability';
import { listsSignature, type ChainReader, type UnreadableTransaction } from '../clients/signature-scanner';
import {
  insertUnreadableOnce,
  lockRequestsByReference,
  PaymentRequestEntity,
  recordedUnreadable,
  requestsAround,
} from '../persistence';
import { emitWholeTransaction } from './shared/transfer-unapplied';

/** Requests whose reference listings are searched for one unreadable transaction, at most. */
const MAX_CANDIDATES = 200;

const unreadableSeen = counter(
  'solana_watcher_transactions_unreadable_total',
  'Transactions to the receiving wallet or a reference the watcher could not read (recorded, read again later)',
);

/**
 * Records transactions the scan could not read, before the scan moves past them, so none is skipped: each is kept
 * (once per signature) to be read again later, and, for every payment whose reference it names, the payment service
 * is told of `unreadable` funds (amount unknown) so the operator sees them. Which references it names cannot be read
 * from the transaction itself: the reference it was listed under when a reference was scanned, otherwise the
 * requests whose window held its block time whose own listings show it (up to MAX_CANDIDATES listings). Those
 * listings are searched only for transactions not recorded yet, so a rescan of a page costs one query; each
 * transaction is recorded in its own short transaction after its listings were read, so an RPC error midway keeps
 * those already recorded and the next pass resumes after them.
 */
export async function recordUnreadableTransactions(
  connection: ChainReader,
  dataSource: DataSource,
  uow: UnitOfWork,
  unreadable: readonly UnreadableTransaction[],
  retryMs: number,
  logger: Logger,
): Promise<void> {
  if (unreadable.length === 0) return;
  const alreadyRecorded = await recordedUnreadable(
    dataSource.manager,
    unreadable.map((transaction) => transaction.signature),
  );
  for (const transaction of unreadable) {
    if (alreadyRecorded.has(transaction.signature)) continue;
    const namedReferences = await referencesNaming(connection, dataSource, transaction);
    await uow.run({}, async (tx) => {
      const recorded = await insertUnreadableOnce(tx.manager, {
        ...transaction,
        namedReferences,
        nextAttemptAt: new Date(Date.now() + retryMs),
      });
      if (!recorded) return;
      unreadableSeen.inc();
      logger.error(
        { signature: transaction.signature, error: transaction.error, references: namedReferences },
        'transaction the watcher cannot read recorded; it is read again later',
      );
      const requests = await lockRequestsByReference(tx.manager, namedReferences);
      await emitWholeTransaction(tx, requests, transaction.signature, 'unreadable');
    });
  }
}

async function referencesNaming(
  connection: ChainReader,
  dataSource: DataSource,
  transaction: UnreadableTransaction,
): Promise<string[]> {
  // Listed under a reference (an amount change's last look at it): that reference is named.
  const listedUnder = await dataSource.manager.findOneBy(PaymentRequestEntity, {
    reference: transaction.address,
  });
  if (listedUnder) return [listedUnder.reference];
  const at = transaction.blockTime === null ? null : new Date(transaction.blockTime * 1000);
  const candidates = await requestsAround(dataSource.manager, at, MAX_CANDIDATES);
  const named: string[] = [];
  for (const candidate of candidates)
    if (await listsSignature(connection, candidate.reference, transaction.signature))
      named.push(candidate.reference);
  return named;
}
