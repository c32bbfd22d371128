import type { PaymentEventPayload } from '@gateway/contracts';
import { postPaymentJournals, type PaymentJournal } from '../persistence';
import {
  afterPaymentPosting,
  paymentJournalOf,
  postConfirmedPayment,
  type PostConfirmedPaymentDeps,
} from './post-confirmed-payment';

export interface PaymentPostingBatchesOptions {
  /** The most postings one batch writes (the consumer's prefetch bounds it too). */
  maxBatch?: number;
}

interface WaitingPosting {
  event: PaymentEventPayload;
  journal: PaymentJournal;
  resolve: (outcome: { posted: boolean }) => void;
  reject: (err: unknown) => void;
}

/** Enough to cover any prefetch the service runs with; a bigger batch only makes one statement longer. */
const DEFAULT_MAX_BATCH = 64;

/**
 * `payment.confirmed.v1`, posted several at a time: the payments that arrive while a batch is being written wait for
 * it and are written together in the next one, one statement and one commit (`postPaymentJournals`), so the round
 * trip, the statement and the commit's flush are paid once per batch instead of once per payment. A payment alone is
 * posted as `postConfirmedPayment` posts it; nothing waits for a timer, so an event that finds the books idle is
 * written at once.
 *
 * Each `post` resolves only once its posting is committed (so its message is acked after it) and answers as
 * `postConfirmedPayment` does. A batch the database refuses (one bad posting, a deadlock, a lost connection) writes
 * nothing; each of its payments is then posted on its own, so one failing posting fails its own message only, and the
 * others are posted once. A second event of a payment (or the same event twice) waits for the batch its first is in,
 * and is posted in a later one, where its key finds the first.
 */
export class PaymentPostingBatches {
  private readonly waiting: WaitingPosting[] = [];
  private readonly maxBatch: number;
  private writing = false;
  private scheduled = false;

  constructor(
    private readonly deps: PostConfirmedPaymentDeps,
    options: PaymentPostingBatchesOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? DEFAULT_MAX_BATCH;
  }

  post(event: PaymentEventPayload): Promise<{ posted: boolean }> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ event, journal: paymentJournalOf(event, this.deps.delays), resolve, reject });
      this.schedule();
    });
  }

  /**
   * The next batch starts once the one being written is done, after the events already read from the broker have
   * joined (an immediate, not a timer).
   */
  private schedule(): void {
    if (this.writing || this.scheduled || this.waiting.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.writing || this.waiting.length === 0) return;
      this.writing = true;
      void this.write(this.takeBatch()).finally(() => {
        this.writing = false;
        this.schedule();
      });
    });
  }

  /** The oldest waiting postings, at most one per payment and per cause key; the others wait for the next batch. */
  private takeBatch(): WaitingPosting[] {
    const batch: WaitingPosting[] = [];
    const payments = new Set<string>();
    const causes = new Set<string>();
    for (let i = 0; i < this.waiting.length && batch.length < this.maxBatch;) {
      const waiting = this.waiting[i]!;
      const { paymentId } = waiting.journal.settlement;
      if (payments.has(paymentId) || causes.has(waiting.journal.causeKey)) {
        i += 1;
        continue;
      }
      payments.add(paymentId);
      causes.add(waiting.journal.causeKey);
      batch.push(waiting);
      this.waiting.splice(i, 1);
    }
    return batch;
  }

  private async write(batch: WaitingPosting[]): Promise<void> {
    if (batch.length === 1) {
      const [only] = batch;
      await postConfirmedPayment(this.deps, only!.event).then(only!.resolve, only!.reject);
      return;
    }
    let journalIds: Map<string, number>;
    try {
      journalIds = await postPaymentJournals(
        this.deps.dataSource,
        batch.map((waiting) => waiting.journal),
      );
    } catch (err) {
      this.deps.logger.warn(
        { err: String(err), postings: batch.length },
        'a batch of payment postings was refused: each is posted on its own',
      );
      await Promise.all(
        batch.map((waiting) =>
          postConfirmedPayment(this.deps, waiting.event).then(waiting.resolve, waiting.reject),
        ),
      );
      return;
    }
    await Promise.all(
      batch.map((waiting) => {
        const posted = journalIds.has(waiting.journal.causeKey);
        return afterPaymentPosting(this.deps, waiting.event, waiting.journal, posted).then(
          () => waiting.resolve({ posted }),
          waiting.reject,
        );
      }),
    );
  }
}
