import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { UnitOfWork } from '@gateway/messaging';
import { BatchTask, type BatchTaskOptions } from '@gateway/service-runtime';
import { inSpan, tracerOf } from '@gateway/observability';
import { readCob } from '../clients/psp/read-cob';
import type { ApiPixClient } from '../clients/psp/api-pix-client';
import { LIST_MAX_PAGES } from '../clients/psp/pix-lists';
import { RequestBudget, withinBudget } from '../clients/psp/request-budget';
import { claimOverdueCharges } from '../persistence/charge-store';
import {
  activeChargesWithNewPix,
  leaseReceivedPixPoll,
  releaseReceivedPixPoll,
  type MedSweepOutcome,
  type MedSweepProgress,
} from '../persistence/received-pix-poll-store';
import { MED_SWEEP_EVERY_MS, MED_WINDOW_DAYS } from '../domain/med';
import { applyListedPix } from './shared/record-received-pix';
import { reportListedMeds } from './shared/follow-med';
import { notePspKnowledgeOfCharge, type UnknownChargeDeps } from './shared/charge-unknown-at-psp';

export interface OverdueCallbackPollOptions extends BatchTaskOptions, UnknownChargeDeps {
  dataSource: DataSource;
  uow: UnitOfWork;
  psp: Pick<ApiPixClient, 'getCharge' | 'receivedPixPage'>;
  /** Once a charge is still active this long after it was opened, the PSP's list of received Pix is read for it. */
  overdueSeconds: number;
  /** Each active charge is also read alone this long after it was opened, and again as long after (within budget). */
  recheckSeconds: number;
  /** The most requests the pass makes at the PSP per minute, all replicas together. */
  requestsPerMinute: number;
}

const tracer = tracerOf('@gateway/pix-adapter');

/**
 * A Pix the PSP lists later than its own time says (clock skew, a list that catches up) is still read: each period
 * starts this long before the previous one ended.
 */
export const LIST_OVERLAP_MS = 120_000;
/**
 * How long a replica holds the pass before another may take it (one that died mid-pass frees it by then). A pass asks
 * the PSP nothing more after half of it, so two replicas never run it at once.
 */
const LEASE_SECONDS = 120;

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The PSP's callback is only a trigger and may never come. While charges are still active past `overdueSeconds`, the
 * pass reads the PSP's list of received Pix for the period since the last read (`GET /pix?inicio=&fim=`, a page of up
 * to 1,000 per request), whatever the number of open charges; only a charge the list shows with a Pix not applied yet
 * is read again (`GET /cob/{txid}`, whose Pix are applied exactly as a callback's would be, its payer included).
 * What is left of the minute's budget re-reads charges alone, oldest check first, each at most once per
 * `recheckSeconds`, which finds a charge the PSP no longer knows or removed. Every `MED_SWEEP_EVERY_MS`, before the
 * re-reads, the pass also lists the Pix of the whole MED window (80 days) for a MED whose first callback was lost,
 * page by page within the same budget: a sweep the budget cuts short goes on from its page the next minute, over the
 * same period. One replica holds the pass at a time, so
 * the budget is the deployment's; no transaction waits on the PSP, and a charge's expiry stays the expiry sweeper's
 * (which reads each charge when its window ends, so a Pix the list missed is found then).
 */
export class OverdueCallbackPoll extends BatchTask {
  constructor(private readonly options: OverdueCallbackPollOptions) {
    super('pix-overdue-callback-poll', options);
  }

  /**
   * One pass; returns how many charges it re-read alone (a full batch runs the next pass at once, within the budget),
   * 0 when another replica holds the pass. The requests it made at the PSP are `lastPassRequests`.
   */
  async runOnce(): Promise<number> {
    const { dataSource, requestsPerMinute, overdueSeconds } = this.options;
    const owner = randomUUID();
    const lease = await leaseReceivedPixPoll(dataSource.manager, {
      owner,
      leaseSeconds: LEASE_SECONDS,
      requestsPerMinute,
      overdueSeconds,
      medSweepEverySeconds: MED_SWEEP_EVERY_MS / 1000,
    });
    if (!lease) {
      this.lastPassRequests = 0;
      return 0;
    }
    // Every HTTP request the pass causes counts (a call's retries and a new token too); none after half the lease.
    const budget = new RequestBudget(lease.budget, Date.now() + (LEASE_SECONDS * 1000) / 2);
    let rechecked = 0;
    let polledUntil: Date | null = null;
    let medSweep: MedSweepOutcome = 'untouched';
    // Whether the pass may start another call; a call the budget runs out in the middle of fails, as unavailable.
    const spend = () => budget.left > 0;
    try {
      await withinBudget(budget, async () => {
        if (lease.oldestOverdue !== null && lease.oldestActive !== null) {
          await inSpan(tracer, 'pix received list poll', {}, async () => {
            // No Pix for an active charge is older than the oldest one (less the clocks' disagreement).
            const since =
              Math.max(lease.oldestActive!.getTime(), lease.polledUntil?.getTime() ?? 0) - LIST_OVERLAP_MS;
            const listed = await this.readList(new Date(since), lease.now, spend);
            if (listed === 'incomplete') return;
            for (const txid of await activeChargesWithNewPix(dataSource.manager, listed)) {
              if (!spend() || !(await this.readCharge(txid))) return;
            }
            // Only a period read whole, and every charge it showed new money for read and applied, moves the mark on.
            polledUntil = lease.now;
          });
        }
        if (lease.medSweep) medSweep = await this.sweepMedWindow(lease.medSweep, spend);
        rechecked = await this.recheckCharges(budget.left, spend);
      });
    } finally {
      const requests = budget.used;
      await releaseReceivedPixPoll(dataSource.manager, { owner, requests, polledUntil, medSweep });
      this.lastPassRequests = requests;
    }
    return rechecked;
  }

  /** The requests the last pass made at the PSP (for tests and logs). */
  lastPassRequests = 0;

  /** Every Pix listed in the period, or 'incomplete' when the budget or the PSP stopped the read before its end. */
  private async readList(
    inicio: Date,
    fim: Date,
    spend: () => boolean,
  ): Promise<Array<{ endToEndId: string; txid: string }> | 'incomplete'> {
    const listed: Array<{ endToEndId: string; txid: string }> = [];
    for (let page = 0; page < LIST_MAX_PAGES; page += 1) {
      if (!spend()) {
        // Read again from the same mark next minute: a budget below one period's pages would never get through.
        this.options.logger.warn(
          { pages_read: page, inicio: inicio.toISOString() },
          "PSP's list of received Pix not read whole within the request budget (PSP_POLL_REQUESTS_PER_MINUTE)",
        );
        return 'incomplete';
      }
      const read = await this.options.psp.receivedPixPage(inicio, fim, page).catch((err: unknown) => {
        this.options.logger.warn({ err: String(err) }, "PSP's list of received Pix not read");
        return null;
      });
      if (read === null) return 'incomplete';
      for (const pix of read.items) if (pix.txid) listed.push({ endToEndId: pix.endToEndId, txid: pix.txid });
      if (page + 1 >= read.pages) return listed;
    }
    return 'incomplete';
  }

  /**
   * Lists the Pix of the MED window ending at the sweep's `fim` from its next page, reporting every MED on a charge of
   * ours; answers 'done' once the last page is read, else the page to go on from (the budget ran out, the PSP failed).
   */
  private async sweepMedWindow(sweep: MedSweepProgress, spend: () => boolean): Promise<MedSweepOutcome> {
    const { psp, logger } = this.options;
    const inicio = new Date(sweep.fim.getTime() - MED_WINDOW_DAYS * DAY_MS);
    for (let page = sweep.nextPage; page < LIST_MAX_PAGES; page += 1) {
      if (!spend()) return { fim: sweep.fim, nextPage: page };
      const read = await psp.receivedPixPage(inicio, sweep.fim, page).catch((err: unknown) => {
        logger.warn({ err: String(err), page }, 'the Pix of the MED window could not be listed now');
        return null;
      });
      if (read === null) return { fim: sweep.fim, nextPage: page };
      const reported = await reportListedMeds(this.options, read.items);
      if (reported > 0) logger.info({ reported, page }, 'MED found by the sweep of the MED window');
      if (page + 1 >= read.pages) return 'done';
    }
    return 'done';
  }

  /** Re-reads charges alone, those whose last check is oldest first, `count` at most; resolves how many. */
  private async recheckCharges(count: number, spend: () => boolean): Promise<number> {
    if (count <= 0) return 0;
    const due = await claimOverdueCharges(
      this.options.dataSource.manager,
      this.options.recheckSeconds,
      Math.min(count, this.batchSize),
    );
    if (due.length === 0) return 0;
    await inSpan(
      tracer,
      'pix charge recheck',
      { attributes: { 'gateway.pix.charges': due.length } },
      async () => {
        for (const txid of due) {
          // Out of time: the rest stays claimed until its next check, and is read then.
          if (!spend()) break;
          await this.readCharge(txid);
        }
      },
    );
    return due.length;
  }

  /**
   * Reads the charge at the PSP and applies the Pix it lists; notes whether the PSP still knows it. Resolves false
   * when the PSP could not answer (the Pix it would list are not applied yet).
   */
  private async readCharge(txid: string): Promise<boolean> {
    const { uow, psp, logger } = this.options;
    const cob = await readCob(psp, txid, logger);
    await notePspKnowledgeOfCharge(this.options, txid, cob);
    if (cob === 'unavailable') return false;
    if (cob !== 'missing' && cob.pix?.length)
      await uow.run({}, (tx) => applyListedPix(tx, cob, 'poll', logger));
    return true;
  }
}
