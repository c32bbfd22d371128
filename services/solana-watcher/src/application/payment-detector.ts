import type { DataSource } from 'typeorm';
import type { Token } from '@gateway/contracts';
import { PeriodicWorker, type Transaction, type UnitOfWork } from '@gateway/messaging';
import { counter, gauge, inSpan, tracerOf, type Logger } from '@gateway/observability';
import type { ArrivalQuotes } from '../clients/arrival-quotes';
import { type RequestPacer } from '../clients/request-pacer';
import type { SolanaRpc } from '../clients/solana-rpc';
import {
  scanAddresses,
  type ScanCursor,
  type ScanOutcome,
  type ScanPage,
} from '../clients/signature-scanner';
import { associatedTokenAddress } from '../domain/program-address';
import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from '../domain/transfer-validation';
import { openReferences, saveScanCursor, savedScanCursor, whileHoldingScanLock } from '../persistence';
import { closeExpiredRequests } from './close-expired-requests';
import { forgetUnreadCount, readUnreadableTransactions } from './read-unreadable-transactions';
import { recordTransfers, type TransferCriteria } from './record-transfers';
import { recordUnreadableTransactions } from './record-unreadable-transactions';

/** Idle polling (the finalized slot and one listing per watched account) takes at most this share of the pace. */
const POLLING_SHARE_OF_BUDGET = 0.5;
/**
 * Per pass, the open payments' references listed first take at most this many seconds of the pace (the least
 * recently listed first), and the walk of the wallet's own history reads at most this many seconds of transactions:
 * a flood of transfers to the wallet is read over several passes, each of which looks at the payments first.
 */
const REFERENCE_SECONDS_PER_PASS = 1;
const WALLET_READ_SECONDS_PER_PASS = 2;
/** Signatures read through a reference and not yet passed by the wallet's walk; forgotten past this many. */
const MAX_READ_THROUGH_REFERENCES = 10_000;
const MAX_POLL_INTERVAL_MS = 60_000;
const tracer = tracerOf('@gateway/solana-watcher');

const scans = counter('solana_watcher_scans_total', 'Detection passes, by outcome', ['outcome']);
const secondsSinceScan = gauge(
  'solana_watcher_seconds_since_last_scan',
  'Seconds since the last successful chain scan of this process',
);
const slotLag = gauge(
  'solana_watcher_scan_slot_lag',
  'Finalized chain slots between the last two successful scans',
);
const transactionsHeldBack = gauge(
  'solana_watcher_transactions_held_back',
  'Transactions to the receiving wallet seen at confirmed and left for a later scan (not finalized or not served yet)',
);
const rpcPace = gauge(
  'solana_watcher_rpc_requests_per_second',
  'RPC requests per second the watcher allows itself now',
);
const pollInterval = gauge(
  'solana_watcher_poll_interval_seconds',
  'Current interval between detection passes',
);

export interface DetectorSettings {
  receivingWallet: string;
  mints: Record<Token, string>;
  /** The shortest interval between passes; longer when the RPC budget is small or the provider pushed back. */
  pollIntervalMs: number;
  /**
   * How long after its window a request stays open: a transfer that landed in time is listed only once `confirmed`,
   * so a scan started just after the window may not list it yet.
   */
  confirmationGraceMs: number;
  /** The pacer every RPC request of `connection` goes through. */
  pacer: Pick<RequestPacer, 'requestsPerSecond'>;
  /** How long before a transaction the watcher could not read is read again (longer after each failed attempt). */
  unreadableRetryMs: number;
  /** The quotes money outside its payment's window is valued at, taken before each page's transaction. */
  arrivalQuotes: Pick<ArrivalQuotes, 'forPage'>;
}

/** The receiving wallet's token account per accepted mint, and what a transfer to them must be to count. */
interface WatchedAccounts {
  accounts: string[];
  criteria: TransferCriteria;
}

/**
 * Finds payments on chain: every poll it scans the receiving wallet's token accounts from the saved cursor, applies
 * each transfer instruction once, settles requests paid in full, reads again the transactions it could not read
 * before, then closes requests whose window ended at least the confirmation grace before that scan began: a
 * transfer landing just before expiry is listed only once `confirmed`, so it is not missed as long as it confirms
 * (and the RPC node serves it) within the grace. Every page of the scan commits its applied transfers, emitted events
 * and moved cursor in one transaction, so a pass failing midway keeps what it read; a transaction it cannot read is
 * recorded before the page moves past it.
 *
 * Commitment: transfers are seen at `confirmed` and count (recorded, settling) only once `finalized` (rooted: it can
 * no longer be rolled back, about 13 s later on mainnet). Until then the scan stops before them on their account,
 * expiry waits for them, and a change of amount asks its caller to try again.
 */
export class PaymentDetector extends PeriodicWorker {
  private watched?: WatchedAccounts;
  private lastScanAt = Date.now();
  private lastScannedSlot?: number;
  private unreadableDueAt = 0;
  /** Per open reference, its newest signature read (this process's; a restart lists each reference once again). */
  private readonly referenceCursor: Record<string, string> = {};
  /** When each open reference was last listed, so every one is listed in turn when they outnumber a pass's share. */
  private readonly referenceListedAt = new Map<string, number>();
  /** Transactions read through a reference: the wallet's walk moves past them without reading them again. */
  private readonly readThroughReferences = new Set<string>();
  /** References listed by the last pass: they count in the polling interval. */
  private referencesPerPass = 0;

  constructor(
    private readonly dataSource: DataSource,
    private readonly connection: SolanaRpc,
    private readonly uow: UnitOfWork,
    private readonly settings: DetectorSettings,
    private readonly logger: Logger,
  ) {
    // Read before every wait, so the interval follows the RPC pace.
    super({ name: 'solana-payment-detector', intervalMs: () => this.pollIntervalMs(), logger });
  }

  /**
   * POLL_INTERVAL_MS, or longer when idle polling would take more than half the pace: with a public endpoint's
   * 4 requests per second and four requests per idle pass, a pass every 2 s; twice that after the provider pushed
   * back once. Transactions found are read at the pace, not held to the interval.
   */
  private pollIntervalMs(): number {
    const requestsPerPass = 1 + Object.keys(this.settings.mints).length + this.referencesPerPass;
    const pace = this.settings.pacer.requestsPerSecond;
    const forBudget = (requestsPerPass * 1000) / (pace * POLLING_SHARE_OF_BUDGET);
    const intervalMs = Math.min(MAX_POLL_INTERVAL_MS, Math.max(this.settings.pollIntervalMs, forBudget));
    rpcPace.set(pace);
    pollInterval.set(intervalMs / 1000);
    return intervalMs;
  }

  /**
   * The token account of each accepted mint, under the program that owns the mint (a Token-2022 mint's account is
   * derived with Token-2022), read from the chain once.
   */
  private async watchedAccounts(): Promise<WatchedAccounts> {
    if (this.watched) return this.watched;
    const mints = Object.values(this.settings.mints);
    const infos = await this.connection.getMultipleAccounts(mints);
    const programs = mints.map((mint, index) => {
      const owner = infos[index]?.owner;
      if (owner !== TOKEN_PROGRAM_ID && owner !== TOKEN_2022_PROGRAM_ID)
        throw new Error(`mint ${mint} is not a token mint on this chain (owner ${owner ?? 'none'})`);
      return owner;
    });
    this.watched = {
      accounts: mints.map((mint, index) =>
        associatedTokenAddress(this.settings.receivingWallet, mint, programs[index]!),
      ),
      criteria: {
        receivingWallet: this.settings.receivingWallet,
        acceptedMints: new Map(mints.map((mint, index) => [mint, programs[index]!])),
      },
    };
    return this.watched;
  }

  /**
   * One detection pass, unless another replica holds the scan; returns whether this process ran it. A replica that
   * did not run it reports no unread transactions (the holder reports them; the alert takes the largest), and reads
   * them first once it holds the lock again. Expiry also waits for an unread transaction that may pay the request
   * (see closeExpiredRequests).
   */
  async runOnce(): Promise<boolean> {
    return (await this.runPass()).ran;
  }

  /** One pass (see runOnce); `more`: the wallet's walk spent its share of the pace with transactions left to read. */
  private async runPass(): Promise<{ ran: boolean; more: boolean }> {
    let more = false;
    const ran = await whileHoldingScanLock(this.dataSource, async () => {
      // A transfer that landed by then has had the grace to be confirmed, so this scan lists it.
      const listedBy = Date.now() - this.settings.confirmationGraceMs;
      const { heldBackSince, budgetSpent } = await this.scan();
      more = budgetSpent;
      await this.readUnreadableWhenDue();
      // A held-back transaction may still count for a request whose window ends at or after its block time.
      const dueBy = heldBackSince === null ? listedBy : Math.min(listedBy, heldBackSince * 1000 - 1);
      await closeExpiredRequests(this.uow, new Date(dueBy), this.logger);
    });
    if (!ran) {
      forgetUnreadCount();
      this.unreadableDueAt = 0;
    }
    return { ran, more };
  }

  /**
   * Transactions it could not read are read again once per UNREADABLE_RETRY_MS (the soonest any falls due), not on
   * every pass, so idle passes stay as light as before.
   */
  private async readUnreadableWhenDue(): Promise<void> {
    if (Date.now() < this.unreadableDueAt) return;
    this.unreadableDueAt = Date.now() + this.settings.unreadableRetryMs;
    await readUnreadableTransactions(
      this.connection,
      this.dataSource,
      this.uow,
      (await this.watchedAccounts()).criteria,
      this.settings.unreadableRetryMs,
      this.logger,
      this.settings.arrivalQuotes,
    );
  }

  /** Metrics around one detection pass; failures are logged by the loop. Runs again at once while a backlog waits. */
  protected override async pass(): Promise<boolean> {
    try {
      const { ran, more } = await this.runPass();
      scans.inc({ outcome: ran ? 'scanned' : 'skipped' });
      return more;
    } catch (err) {
      scans.inc({ outcome: 'failed' });
      throw err;
    } finally {
      secondsSinceScan.set((Date.now() - this.lastScanAt) / 1000);
    }
  }

  /**
   * One scan: the open payments' references first (a share of the pace), then the wallet's token accounts from the
   * saved cursor, saved page by page, reading at most a share of the pace; the block time of the oldest transaction
   * held back, and whether the walk left transactions for the next pass.
   */
  private async scan(): Promise<{ heldBackSince: number | null; budgetSpent: boolean }> {
    const watched = await this.watchedAccounts();
    let cursor: ScanCursor = await savedScanCursor(this.dataSource.manager);
    const finalizedSlot = await this.connection.getSlot('finalized');
    const pace = this.settings.pacer.requestsPerSecond;
    const throughReferences = await this.scanOpenReferences(watched, finalizedSlot, pace);
    const outcome = await scanAddresses(
      this.connection,
      watched.accounts,
      cursor,
      async (page) => {
        await this.recordUnreadable(page);
        const quotes = await this.settings.arrivalQuotes.forPage(page);
        await this.inScanSpan(page, () =>
          this.uow.run({}, async (tx) => {
            await recordTransfers(tx, page, watched.criteria, this.logger, quotes);
            await this.saveCursor(tx, page.cursor, cursor);
          }),
        );
        cursor = page.cursor;
      },
      {
        finalizedSlot,
        maxReads: Math.max(1, Math.ceil(pace * WALLET_READ_SECONDS_PER_PASS)),
        readAlready: this.readThroughReferences,
      },
    );
    transactionsHeldBack.set(outcome.heldBack + throughReferences.heldBack);
    slotLag.set(this.lastScannedSlot === undefined ? 0 : finalizedSlot - this.lastScannedSlot);
    this.lastScannedSlot = finalizedSlot;
    this.lastScanAt = Date.now();
    const since = [outcome.heldBackSince, throughReferences.heldBackSince].filter((at) => at !== null);
    return {
      heldBackSince: since.length === 0 ? null : Math.min(...since),
      budgetSpent: outcome.budgetSpent,
    };
  }

  /**
   * Lists the open payments' references (those listed least recently first, up to a share of the pace) and applies
   * what they show, before the wallet's history is walked: a flood of transfers to the wallet (dust) delays no
   * payment, since a payment's transfer names its reference. What is read here is not read again by the walk.
   */
  private async scanOpenReferences(
    watched: WatchedAccounts,
    finalizedSlot: number,
    pace: number,
  ): Promise<Pick<ScanOutcome, 'heldBack' | 'heldBackSince'>> {
    const open = await openReferences(this.dataSource.manager);
    const openSet = new Set(open);
    for (const reference of this.referenceListedAt.keys())
      if (!openSet.has(reference)) {
        this.referenceListedAt.delete(reference);
        delete this.referenceCursor[reference];
      }
    if (this.readThroughReferences.size > MAX_READ_THROUGH_REFERENCES) this.readThroughReferences.clear();
    const listed = open
      .sort((a, b) => (this.referenceListedAt.get(a) ?? 0) - (this.referenceListedAt.get(b) ?? 0))
      .slice(0, Math.max(1, Math.ceil(pace * REFERENCE_SECONDS_PER_PASS)));
    this.referencesPerPass = listed.length;
    const now = Date.now();
    for (const reference of listed) this.referenceListedAt.set(reference, now);
    return scanAddresses(
      this.connection,
      listed,
      this.referenceCursor,
      async (page) => {
        await this.recordUnreadable(page);
        if (page.transactions.length > 0) {
          const quotes = await this.settings.arrivalQuotes.forPage(page);
          await this.inScanSpan(page, () =>
            this.uow.run({}, (tx) => recordTransfers(tx, page, watched.criteria, this.logger, quotes)),
          );
        }
        for (const read of [...page.transactions, ...page.unreadable])
          this.readThroughReferences.add(read.signature);
        Object.assign(this.referenceCursor, page.cursor);
      },
      { finalizedSlot },
    );
  }

  /**
   * A last look at one reference before an amount change supersedes it: every transfer the chain holds for it is
   * applied as a scan would (settling or adding to the request while it is still open), so money that landed before
   * the change counts for the request it was sent to. The chain is read first, then a short transaction applies;
   * a detector pass applying the same transfer concurrently is harmless (each (signature, instruction) is recorded
   * once, under the request's row lock). Throws when the chain cannot be read, or when a transfer to the reference
   * is not finalized yet: whether it pays the request is known only then, so the caller tries again.
   */
  async scanReference(reference: string): Promise<void> {
    const watched = await this.watchedAccounts();
    const finalizedSlot = await this.connection.getSlot('finalized');
    const outcome = await scanAddresses(
      this.connection,
      [reference],
      {},
      async (page) => {
        await this.recordUnreadable(page);
        if (page.transactions.length === 0) return;
        const quotes = await this.settings.arrivalQuotes.forPage(page);
        await this.inScanSpan(page, () =>
          this.uow.run({}, (tx) => recordTransfers(tx, page, watched.criteria, this.logger, quotes)),
        );
      },
      { finalizedSlot },
    );
    if (outcome.heldBack > 0)
      throw new Error(`${outcome.heldBack} transaction(s) to reference ${reference} not finalized yet`);
  }

  /**
   * A page of the scan that found transactions is a span (a trace of its own unless a command asked for the scan):
   * each transfer is then processed in its payment's trace, linked to it. Idle pages make no trace.
   */
  private inScanSpan<T>(page: ScanPage, work: () => Promise<T>): Promise<T> {
    if (page.transactions.length === 0) return work();
    const attributes = { 'gateway.solana.transactions': page.transactions.length };
    return inSpan(tracer, 'chain scan', { attributes }, work);
  }

  /** Before the page moves the cursor past them: see recordUnreadableTransactions. */
  private recordUnreadable(page: ScanPage): Promise<void> {
    return recordUnreadableTransactions(
      this.connection,
      this.dataSource,
      this.uow,
      page.unreadable,
      this.settings.unreadableRetryMs,
      this.logger,
    );
  }

  private async saveCursor(tx: Transaction, cursor: ScanCursor, previous: ScanCursor): Promise<void> {
    for (const [address, signature] of Object.entries(cursor)) {
      if (previous[address] === signature) continue;
      await saveScanCursor(tx.manager, address, signature);
    }
  }
}
