import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { PublicKey, type Connection } from '@solana/web3.js';
import type { DataSource } from 'typeorm';
import {
  cryptoRequestClosed,
  cryptoRequestSettled,
  cryptoTransferUnapplied,
  type Token,
} from '@gateway/contracts';
import { PeriodicTask, type Transaction, type UnitOfWork } from '@gateway/messaging';
import { counter, gauge, inSpan, inStoredTrace, tracerOf, type Logger } from '@gateway/observability';
import { type RequestPacer } from '../chain/request-pacer';
import { scanAddresses, type ScanCursor, type ScanPage } from '../chain/signature-scanner';
import { applyTransfer, expiryReason, unappliedReason } from '../domain/settlement';
import {
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  accountKeys,
  findReferencedTransfers,
  type ReferencedTransfer,
} from '../domain/transfer-validation';
import { PaymentRequestEntity, ScanCursorEntity } from '../persistence';

/** Advisory lock key: one replica scans at a time; the others skip their turn. */
const SCAN_LOCK = 'solana_watcher:scan';
const EXPIRY_BATCH = 100;
/** Idle polling (the finalized slot and one listing per watched account) takes at most this share of the pace. */
const POLLING_SHARE_OF_BUDGET = 0.5;
const MAX_POLL_INTERVAL_MS = 60_000;
const tracer = tracerOf('@gateway/solana-watcher');

const scans = counter('solana_watcher_scans_total', 'Detection passes, by outcome', ['outcome']);
const transfersRecorded = counter('solana_watcher_transfers_total', 'Transfers recorded, by destination', [
  'applied_to',
]);
const requestsSettled = counter('solana_watcher_requests_settled_total', 'Transfer requests paid in full');
const requestsClosed = counter('solana_watcher_requests_closed_total', 'Transfer requests closed unpaid', [
  'reason',
]);
const secondsSinceScan = gauge(
  'solana_watcher_seconds_since_last_scan',
  'Seconds since the last successful chain scan of this process',
);
const transactionsUnsupported = counter(
  'solana_watcher_transactions_unsupported_total',
  'Transactions to the receiving wallet in a version this watcher does not parse (passed over, logged)',
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
}

/** The receiving wallet's token account per accepted mint, under the token program that owns the mint. */
interface WatchedAccounts {
  accounts: string[];
  /** Accepted mint -> its token program (classic SPL Token or Token-2022). */
  acceptedMints: ReadonlyMap<string, string>;
}

/**
 * Finds payments on chain: every poll it scans the receiving wallet's token accounts from the saved cursor, applies
 * each (signature, reference) once, settles requests paid in full, then closes requests whose window ended at least
 * the confirmation grace before that scan began: a transfer landing just before expiry is listed only once
 * `confirmed`, so it is not missed as long as it confirms (and the RPC node serves it) within the grace. Every page of
 * the scan commits its applied transfers, emitted events and moved cursor in one transaction, so a pass failing
 * midway keeps what it read.
 *
 * Commitment: transfers are seen at `confirmed` and count (recorded, settling) only once `finalized` (rooted: it can
 * no longer be rolled back, about 13 s later on mainnet). Until then the scan stops before them on their account,
 * expiry waits for them, and a change of amount asks its caller to try again.
 */
export class PaymentDetector {
  private watched?: WatchedAccounts;
  private readonly task: PeriodicTask;
  private lastScanAt = Date.now();
  private lastScannedSlot?: number;

  constructor(
    private readonly dataSource: DataSource,
    private readonly connection: Connection,
    private readonly uow: UnitOfWork,
    private readonly settings: DetectorSettings,
    private readonly logger: Logger,
  ) {
    const interval = () => this.pollIntervalMs();
    this.task = new PeriodicTask(() => this.pass(), {
      name: 'solana-payment-detector',
      // Read before every wait, so the interval follows the RPC pace.
      get intervalMs() {
        return interval();
      },
      logger,
    });
  }

  /**
   * POLL_INTERVAL_MS, or longer when idle polling would take more than half the pace: with a public endpoint's
   * 4 requests per second and four requests per idle pass, a pass every 2 s; twice that after the provider pushed
   * back once. Transactions found are read at the pace, not held to the interval.
   */
  private pollIntervalMs(): number {
    const requestsPerPass = 1 + Object.keys(this.settings.mints).length;
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
    const infos = await this.connection.getMultipleAccountsInfo(mints.map((mint) => new PublicKey(mint)));
    const wallet = new PublicKey(this.settings.receivingWallet);
    const programs = mints.map((mint, index) => {
      const owner = infos[index]?.owner.toBase58();
      if (owner !== TOKEN_PROGRAM_ID && owner !== TOKEN_2022_PROGRAM_ID)
        throw new Error(`mint ${mint} is not a token mint on this chain (owner ${owner ?? 'none'})`);
      return owner;
    });
    this.watched = {
      accounts: mints.map((mint, index) =>
        getAssociatedTokenAddressSync(
          new PublicKey(mint),
          wallet,
          false,
          new PublicKey(programs[index]!),
        ).toBase58(),
      ),
      acceptedMints: new Map(mints.map((mint, index) => [mint, programs[index]!])),
    };
    return this.watched;
  }

  start(): void {
    this.task.start();
  }

  stop(): Promise<void> {
    return this.task.stop();
  }

  /** One detection pass, unless another replica holds the scan; returns whether this process ran it. */
  async runOnce(): Promise<boolean> {
    const lockHolder = this.dataSource.createQueryRunner();
    await lockHolder.connect();
    try {
      const [lock] = await lockHolder.query('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [
        SCAN_LOCK,
      ]);
      if (!lock?.locked) return false;
      try {
        // A transfer that landed by then has had the grace to be confirmed, so this scan lists it.
        const listedBy = Date.now() - this.settings.confirmationGraceMs;
        const heldBackSince = await this.scan();
        // A held-back transaction may still count for a request whose window ends at or after its block time.
        const dueBy = heldBackSince === null ? listedBy : Math.min(listedBy, heldBackSince * 1000 - 1);
        await this.closeExpired(new Date(dueBy));
        return true;
      } finally {
        await lockHolder.query('SELECT pg_advisory_unlock(hashtext($1))', [SCAN_LOCK]);
      }
    } finally {
      await lockHolder.release();
    }
  }

  /** A pass of the periodic task: metrics around one detection pass; failures are logged by the task. */
  private async pass(): Promise<void> {
    try {
      scans.inc({ outcome: (await this.runOnce()) ? 'scanned' : 'skipped' });
    } catch (err) {
      scans.inc({ outcome: 'failed' });
      throw err;
    } finally {
      secondsSinceScan.set((Date.now() - this.lastScanAt) / 1000);
    }
  }

  /** One scan from the saved cursor, saved page by page; the block time of the oldest transaction held back. */
  private async scan(): Promise<number | null> {
    const watched = await this.watchedAccounts();
    const saved = await this.dataSource.manager.find(ScanCursorEntity);
    let cursor: ScanCursor = Object.fromEntries(saved.map((row) => [row.address, row.lastSignature]));
    const finalizedSlot = await this.connection.getSlot('finalized');
    const outcome = await scanAddresses(
      this.connection,
      watched.accounts,
      cursor,
      async (page) => {
        this.passOverUnsupported(page);
        await this.inScanSpan(page, () =>
          this.uow.run({}, async (tx) => {
            await this.apply(tx, page, watched);
            await this.saveCursor(tx, page.cursor, cursor);
          }),
        );
        cursor = page.cursor;
      },
      { finalizedSlot },
    );
    transactionsHeldBack.set(outcome.heldBack);
    slotLag.set(this.lastScannedSlot === undefined ? 0 : finalizedSlot - this.lastScannedSlot);
    this.lastScannedSlot = finalizedSlot;
    this.lastScanAt = Date.now();
    return outcome.heldBackSince;
  }

  /**
   * A last look at one reference before an amount change supersedes it: every transfer the chain holds for it is
   * applied as a scan would (settling or adding to the request while it is still open), so money that landed before
   * the change counts for the request it was sent to. The chain is read first, then a short transaction applies;
   * a detector pass applying the same transfer concurrently is harmless (each (signature, reference) is recorded
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
        this.passOverUnsupported(page);
        if (page.transactions.length > 0)
          await this.inScanSpan(page, () => this.uow.run({}, (tx) => this.apply(tx, page, watched)));
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

  private passOverUnsupported(result: ScanPage): void {
    for (const signature of result.unsupported) {
      transactionsUnsupported.inc();
      this.logger.warn({ signature }, 'transaction of an unsupported version passed over; check it by hand');
    }
  }

  private async apply(tx: Transaction, result: ScanPage, watched: WatchedAccounts): Promise<void> {
    const keys = [...new Set(result.transactions.flatMap((scanned) => accountKeys(scanned.transaction)))];
    // Any of our references, whatever its status: late and superseded transfers are recorded too.
    const requests =
      keys.length === 0
        ? []
        : await tx.manager
            .createQueryBuilder(PaymentRequestEntity, 'request')
            .where('request.reference = ANY(:keys)', { keys })
            .orderBy('request.reference')
            .setLock('pessimistic_write')
            .getMany();
    const byReference = new Map(requests.map((request) => [request.reference, request]));
    const criteria = {
      receivingWallet: this.settings.receivingWallet,
      acceptedMints: watched.acceptedMints,
      openReferences: new Set(byReference.keys()),
    };
    for (const scanned of result.transactions) {
      for (const transfer of findReferencedTransfers(scanned.transaction, criteria)) {
        await this.record(tx, byReference.get(transfer.reference)!, transfer);
      }
    }
  }

  private async saveCursor(tx: Transaction, cursor: ScanCursor, previous: ScanCursor): Promise<void> {
    for (const [address, signature] of Object.entries(cursor)) {
      if (previous[address] === signature) continue;
      await tx.manager.query(
        `INSERT INTO scan_cursors (address, last_signature) VALUES ($1, $2)
         ON CONFLICT (address) DO UPDATE SET last_signature = EXCLUDED.last_signature, updated_at = now()`,
        [address, signature],
      );
    }
  }

  /**
   * Records a transfer once per (signature, reference); only a new one changes the request, or, when it cannot count
   * towards the request, tells the payment service so the money is kept for the payment. It is processed in the trace
   * of the payment's creation, linked to the scan that found it.
   */
  private record(
    tx: Transaction,
    request: PaymentRequestEntity,
    transfer: ReferencedTransfer,
  ): Promise<void> {
    const attributes = {
      'gateway.payment_id': request.paymentId,
      'gateway.solana.signature': transfer.signature,
    };
    return inStoredTrace(tracer, 'transfer detected', request.traceContext, { attributes }, () =>
      this.recordTransfer(tx, request, transfer),
    );
  }

  private async recordTransfer(
    tx: Transaction,
    request: PaymentRequestEntity,
    transfer: ReferencedTransfer,
  ): Promise<void> {
    const outcome = applyTransfer(
      {
        status: request.status,
        mint: request.mint,
        amount: request.amountBaseUnits,
        received: request.receivedBaseUnits,
        expiresAt: request.expiresAt,
      },
      transfer,
    );
    const inserted: unknown[] = await tx.manager.query(
      `INSERT INTO transfers (signature, reference, payment_id, amount, mint, slot, block_time, applied_to)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING RETURNING signature`,
      [
        transfer.signature,
        transfer.reference,
        request.paymentId,
        transfer.amount.toString(),
        transfer.mint,
        transfer.slot,
        transfer.blockTime === null ? null : new Date(transfer.blockTime * 1000),
        outcome.appliedTo,
      ],
    );
    if (inserted.length === 0) return;
    transfersRecorded.inc({ applied_to: outcome.appliedTo });
    const details = {
      payment_id: request.paymentId,
      reference: request.reference,
      signature: transfer.signature,
    };
    if (outcome.appliedTo !== 'payment') {
      this.logger.warn({ ...details, applied_to: outcome.appliedTo }, 'transfer recorded aside');
      // Emitted with the transfer row, so the payment service learns of the money once per (signature, reference).
      await tx.emit(
        cryptoTransferUnapplied,
        {
          ...details,
          amount_base_units: transfer.amount.toString(),
          mint: transfer.mint,
          reason: unappliedReason(outcome.appliedTo, request.status),
          detected_at: new Date().toISOString(),
        },
        { correlationId: request.correlationId },
      );
      return;
    }
    request.receivedBaseUnits = outcome.received;
    if (outcome.settles) {
      request.status = 'settled';
      request.settledSignature = transfer.signature;
    }
    await tx.manager.query(
      `UPDATE payment_requests SET received_base_units = $2, status = $3, settled_signature = $4
       WHERE reference = $1 AND status = 'open'`,
      [request.reference, outcome.received.toString(), request.status, request.settledSignature],
    );
    if (!outcome.settles) {
      this.logger.info({ ...details, received: outcome.received.toString() }, 'partial payment received');
      return;
    }
    requestsSettled.inc();
    this.logger.info(details, 'request settled');
    await tx.emit(
      cryptoRequestSettled,
      {
        payment_id: request.paymentId,
        reference: request.reference,
        signature: transfer.signature,
        received_base_units: outcome.received.toString(),
        excess_base_units: outcome.excess.toString(),
        settled_at: new Date().toISOString(),
      },
      { correlationId: request.correlationId },
    );
  }

  /** Closes open requests whose window ended by `dueBy`; rows another transaction holds are left to the next pass. */
  private async closeExpired(dueBy: Date): Promise<void> {
    await this.uow.run({}, async (tx) => {
      const due = await tx.manager
        .createQueryBuilder(PaymentRequestEntity, 'request')
        .where('request.status = :open AND request.expiresAt <= :dueBy', { open: 'open', dueBy })
        .orderBy('request.expiresAt')
        .limit(EXPIRY_BATCH)
        .setLock('pessimistic_write')
        .setOnLocked('skip_locked')
        .getMany();
      for (const request of due) {
        const reason = expiryReason(request.receivedBaseUnits);
        await tx.manager.query(
          `UPDATE payment_requests SET status = $2 WHERE reference = $1 AND status = 'open'`,
          [request.reference, reason],
        );
        requestsClosed.inc({ reason });
        this.logger.info(
          { payment_id: request.paymentId, reference: request.reference, reason },
          'request closed',
        );
        await tx.emit(
          cryptoRequestClosed,
          {
            payment_id: request.paymentId,
            reference: request.reference,
            reason,
            received_base_units: request.receivedBaseUnits.toString(),
          },
          { correlationId: request.correlationId },
        );
      }
    });
  }
}
