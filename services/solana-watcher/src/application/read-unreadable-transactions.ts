import { In, type DataSource } from 'typeorm';
import type { UnitOfWork } from '@gateway/messaging';
import { gauge, type Logger } from '@gateway/observability';
import type { ArrivalQuotes } from '../clients/arrival-quotes';
import { readTransaction, type ChainReader } from '../clients/signature-scanner';
import {
  countUnread,
  dueUnreadable,
  markUnreadableRead,
  PaymentRequestEntity,
  postponeUnreadable,
} from '../persistence';
import { recordTransfers, type TransferCriteria } from './record-transfers';
import { emitWholeTransaction } from './shared/transfer-unapplied';

/** Transactions read again per detection pass, at most. */
const BATCH = 10;
/** Each failed attempt waits once more the retry interval, up to this many times it. */
const MAX_BACKOFF_STEPS = 60;

const unread = gauge(
  'solana_watcher_transactions_unread',
  'Transactions the watcher could not read and has not read since (their money is not attributed yet)',
);

/**
 * A replica that does not hold the scan lock reports no unread transactions: only the one reading them knows the
 * count, and a value kept from before it lost the lock would keep the alert firing after they were read.
 */
export function forgetUnreadCount(): void {
  unread.set(0);
}

/**
 * Reads again the unreadable transactions that are due (the node may serve their version now, or its answer may
 * parse): one that reads is recorded like any scanned transaction, exactly once (its instructions' records are keyed
 * by signature and instruction), and marked read in the same transaction; one that still does not waits longer. Its
 * money that does not count for its payment is valued at the quote of now, when the watcher learns what it was (taken
 * before the transaction).
 */
export async function readUnreadableTransactions(
  connection: ChainReader,
  dataSource: DataSource,
  uow: UnitOfWork,
  criteria: TransferCriteria,
  retryMs: number,
  logger: Logger,
  arrivalQuotes: Pick<ArrivalQuotes, 'forPage'>,
): Promise<void> {
  for (const due of await dueUnreadable(dataSource.manager, BATCH)) {
    const read = await readTransaction(connection, due.signature);
    if (read === null || 'unreadable' in read) {
      const steps = Math.min(due.attempts + 1, MAX_BACKOFF_STEPS);
      const error = read === null ? 'not served by the node' : read.unreadable;
      await postponeUnreadable(
        dataSource.manager,
        due.signature,
        error,
        new Date(Date.now() + retryMs * steps),
      );
      continue;
    }
    const page = {
      transactions: [{ address: due.address, signature: due.signature, transaction: read }],
      unreadable: [],
      cursor: {},
    };
    const quotes = await arrivalQuotes.forPage(page);
    await uow.run({}, async (tx) => {
      if (!(await markUnreadableRead(tx.manager, due.signature))) return;
      await recordTransfers(tx, page, criteria, logger, quotes);
      // Whatever its money turned out to be (paid, partial, late, unmatched, or none of ours) is reported on its
      // own: every payment told of it as unreadable drops that record.
      const named = await tx.manager.findBy(PaymentRequestEntity, { reference: In(due.namedReferences) });
      await emitWholeTransaction(tx, named, due.signature, 'read');
      logger.info(
        { signature: due.signature, attempts: due.attempts },
        'transaction read at last and recorded',
      );
    });
  }
  unread.set(await countUnread(dataSource.manager));
}
