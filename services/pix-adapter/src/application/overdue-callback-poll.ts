import type { DataSource } from 'typeorm';
import type { UnitOfWork } from '@gateway/messaging';
import { BatchTask, type BatchTaskOptions } from '@gateway/service-runtime';
import { inSpan, tracerOf } from '@gateway/observability';
import { readCob } from '../clients/psp/read-cob';
import type { ApiPixClient } from '../clients/psp/api-pix-client';
import { claimOverdueCharges } from '../persistence/charge-store';
import { applyListedPix } from './shared/record-received-pix';
import { notePspKnowledgeOfCharge, type UnknownChargeDeps } from './shared/charge-unknown-at-psp';

export interface OverdueCallbackPollOptions extends BatchTaskOptions, UnknownChargeDeps {
  dataSource: DataSource;
  uow: UnitOfWork;
  psp: ApiPixClient;
  /** A charge still active this long after it was opened (and again each time as long after its last check) is re-read. */
  overdueSeconds: number;
}

const tracer = tracerOf('@gateway/pix-adapter');

/**
 * The PSP's callback is only a trigger and may never come: charges still active past `overdueSeconds` are re-read at
 * the PSP (`GET /cob/{txid}`) and the PIX it lists are applied exactly as a callback's would be. Each charge is
 * claimed until its next check in one statement (replicas share the work; no transaction waits on the PSP), and
 * never past its expiry, which is the expiry sweeper's.
 */
export class OverdueCallbackPoll extends BatchTask {
  constructor(private readonly options: OverdueCallbackPollOptions) {
    super('pix-overdue-callback-poll', options);
  }

  /** Re-reads the overdue charges once; returns how many were claimed. */
  async runOnce(): Promise<number> {
    const { dataSource, uow, psp, logger, overdueSeconds } = this.options;
    const due = await claimOverdueCharges(dataSource.manager, overdueSeconds, this.batchSize);
    if (due.length === 0) return 0;
    // A pass with work is a trace of its own; each PIX it finds is applied in its payment's trace, linked to it.
    await inSpan(
      tracer,
      'pix overdue callback poll',
      { attributes: { 'gateway.pix.charges': due.length } },
      async () => {
        for (const txid of due) {
          const cob = await readCob(psp, txid, logger);
          await notePspKnowledgeOfCharge(this.options, txid, cob);
          if (cob === 'unavailable' || cob === 'missing' || !cob.pix?.length) continue;
          await uow.run({}, (tx) => applyListedPix(tx, cob, 'poll', logger));
        }
      },
    );
    return due.length;
  }
}
