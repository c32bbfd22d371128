import { BatchTask, type BatchTaskOptions } from '@gateway/service-runtime';
import { PayoutEntity } from '../persistence';
import { claimDuePayouts } from '../persistence/payout-store';
import { PspError } from '../clients/psp/psp-error';
import { PAYOUT_LEASE_SECONDS } from './request-payout';
import { sendPayout } from './shared/send-payout';
import { followPayout, holdPayout, type PayoutDeps } from './shared/settle-payout';

export type OverduePayoutPollOptions = PayoutDeps & BatchTaskOptions;

/**
 * Carries on with every open payout whose time has come: a `requested` one (its first attempt did not go through,
 * its handler stopped midway, or its answer was lost) is sent again under its own idEnvio, which meets the send made
 * if there is one; a `processing` one the PSP holds is re-read (`GET /v2/gn/pix/enviados/id-envio/{idEnvio}`) and
 * settled as it says, the PSP's callback being possibly lost. Each payout is claimed in one statement (replicas share
 * the work; no transaction waits on the PSP).
 */
export class OverduePayoutPoll extends BatchTask {
  constructor(private readonly options: OverduePayoutPollOptions) {
    super('pix-overdue-payout-poll', options);
  }

  /** Tries the due payouts once; returns how many were claimed. */
  async runOnce(): Promise<number> {
    const { dataSource } = this.options;
    const due = await claimDuePayouts(dataSource.manager, PAYOUT_LEASE_SECONDS, this.batchSize);
    for (const payoutId of due) {
      const payout = await dataSource.manager.findOneByOrFail(PayoutEntity, { payoutId });
      if (payout.status === 'requested') await sendPayout(this.options, payout);
      else if (payout.status === 'processing') await this.follow(payout);
    }
    return due.length;
  }

  private async follow(payout: PayoutEntity): Promise<void> {
    try {
      if (!(await followPayout(this.options, payout)))
        await holdPayout(
          this.options,
          payout,
          'unknown_at_psp',
          `the PSP took send ${payout.idEnvio} (endToEndId ${payout.endToEndId ?? '?'}) and now has none under it`,
        );
    } catch (err) {
      if (!(err instanceof PspError)) throw err;
      await holdPayout(
        this.options,
        payout,
        err.kind === 'unauthorized' ? 'unauthorized' : 'unavailable',
        err.message,
      );
    }
  }
}
