import type { DataSource } from 'typeorm';
import {
  cryptoFundsReturnSettled,
  cryptoRefundSettled,
  type FundsReturnRequested,
  type RefundRequested,
} from '@gateway/contracts';
import { CommandError, type MessageContext, type Transaction, type UnitOfWork } from '@gateway/messaging';
import { counter } from '@gateway/observability';
import {
  RefundNotBuildable,
  type RefundOrder,
  type RefundRail,
  type SignedRefund,
} from '../clients/refund-rail';
import {
  fateOf,
  planFundsReturn,
  planRefund,
  refundMemo,
  type PayingTransfer,
  type RefundPlan,
} from '../domain/refund';
import {
  attemptedSignatures,
  committedRefundBaseUnits,
  endRefund,
  findRefund,
  insertRefund,
  lockRefundsOfPayment,
  markRefundSubmitted,
  payingTransfersOf,
  recordLandedAttempt,
  replaceRefundTransaction,
  transfersOfFunds,
  type CryptoRefundEntity,
} from '../persistence';

const refundsSettled = counter('solana_watcher_refunds_total', 'Refunds carried to their end, by outcome', [
  'outcome',
]);
const refundAttempts = counter(
  'solana_watcher_refund_attempts_total',
  'Refund transactions signed, by why (first; raised: a higher price on the same blockhash; renewed: a new blockhash after every earlier one expired)',
  ['why'],
);

export interface RefundDeskSettings {
  /** How long one delivery waits for its transaction to be confirmed before leaving it to a redelivery. */
  confirmationWaitMs: number;
  /** Between two status reads. */
  pollIntervalMs: number;
  /**
   * Between two sends while the cluster does not know the refund's transactions (a node may have dropped them, or
   * leaders skip them for a low price): each time after the first, a transaction at a higher price is signed on the
   * same blockhash, up to the cap, then the newest is sent again as it is.
   */
  resendIntervalMs: number;
}

export const DEFAULT_REFUND_DESK_SETTINGS: RefundDeskSettings = {
  // About five mainnet confirmations; beyond it the broker's backoff takes over.
  confirmationWaitMs: 5_000,
  pollIntervalMs: 250,
  resendIntervalMs: 2_000,
};

const chainUnavailable = () =>
  new CommandError('SERVICE_UNAVAILABLE', 'A rede Solana não respondeu. O reembolso será tentado de novo.');

/**
 * Carries a refund out on chain, crash-safe and at most once. The refund is recorded with what it pays before any
 * transaction exists; every signed transaction (an attempt) is stored before it is sent; every delivery then follows
 * all its attempts: while the cluster knows none of them it sends again, each time at a higher compute-unit price on
 * the same blockhash (up to the configured cap), and takes a new blockhash only once that one has expired without
 * any attempt landing (none can any more). The refund's guard account makes any second attempt fail on chain, so
 * at most one ever pays (docs/adr/0034-priority-fees-and-resends.md). It ends when an attempt's status is confirmed,
 * succeeded or failed with the chain's error, in the transaction that emits crypto.refund.settled.v1 once.
 * Chain requests happen outside any database transaction; while the chain has not decided, the delivery throws
 * SERVICE_UNAVAILABLE for the broker to try again with backoff. The operator's return of held funds to their payer
 * goes the same way (`carryOutReturn`), reported by crypto.funds-return.settled.v1.
 */
export class RefundDesk {
  constructor(
    private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
    private readonly chain: RefundRail,
    private readonly settings: RefundDeskSettings = DEFAULT_REFUND_DESK_SETTINGS,
  ) {}

  async carryOut(event: RefundRequested, context: MessageContext): Promise<void> {
    await this.proceed((await this.find(event.refund_id)) ?? (await this.record(event, context)), context);
  }

  /**
   * Sends held funds (late, excess, unmatched tokens) back to the owners of the token accounts their transfers came
   * from, for their amount, once per return attempt: recorded, signed, sent and followed like a refund.
   */
  async carryOutReturn(event: FundsReturnRequested, context: MessageContext): Promise<void> {
    await this.proceed(
      (await this.find(event.return_id)) ?? (await this.recordReturn(event, context)),
      context,
    );
  }

  /**
   * Takes a recorded refund on from where it stands. One that ended is reported again: asked for again, it is the
   * payment service's resend of a refund it still holds pending, whose first report was lost on the way (it settles a
   * refund once, so a report it had received changes nothing).
   */
  private async proceed(recorded: CryptoRefundEntity, context: MessageContext): Promise<void> {
    let refund = recorded;
    if (refund.status === 'succeeded' || refund.status === 'failed') {
      await this.uow.run(this.origin(context), async (tx) => {
        await this.report(tx, refund);
      });
      return;
    }
    if (refund.status === 'pending') refund = await this.submit(refund, context);
    if (refund.status === 'submitted') await this.follow(refund, context);
  }

  private find(refundId: string): Promise<CryptoRefundEntity | null> {
    return findRefund(this.dataSource.manager, refundId);
  }

  /**
   * Records what the refund pays: the payers of the transfers that paid the payment (read from their transactions on
   * chain first), each its share of the price, plus the excess when the payment service put it on this refund (it
   * marked it returned by this refund, so it is never returned twice). A refund that cannot be planned is recorded
   * failed and reported at once.
   */
  private async record(event: RefundRequested, context: MessageContext): Promise<CryptoRefundEntity> {
    const rows = await payingTransfersOf(this.dataSource.manager, event.payment_id);
    const paying = await this.payersOf(rows, context);
    return this.uow.run(this.origin(context), async (tx) => {
      // Serialises the refunds of one payment, so together they never pay out more than it received.
      await lockRefundsOfPayment(tx.manager, event.payment_id);
      const known = await findRefund(tx.manager, event.refund_id);
      if (known) return known;
      const plan = planRefund(
        paying,
        {
          amountCentavos: event.amount_centavos,
          paymentAmountCentavos: event.payment_amount_centavos,
          excessBaseUnits: BigInt(event.excess?.amount_base_units ?? 0),
        },
        BigInt(rows[0]?.price ?? 0),
        await committedRefundBaseUnits(tx.manager, event.payment_id),
      );
      return this.keep(
        tx,
        { refundId: event.refund_id, paymentId: event.payment_id, fundsId: null, reason: event.reason },
        plan,
        rows[0] ?? null,
        context,
      );
    });
  }

  /** Records what the operator's return pays: the funds' base units back to who sent them (read on chain first). */
  private async recordReturn(
    event: FundsReturnRequested,
    context: MessageContext,
  ): Promise<CryptoRefundEntity> {
    const rows = await transfersOfFunds(this.dataSource.manager, event.rail_reference, event.instruction);
    const paying = await this.payersOf(rows, context);
    const token = rows.find((row) => row.decimals !== null);
    const plan: RefundPlan = token
      ? planFundsReturn(paying, BigInt(event.amount_base_units ?? 0))
      : { kind: 'refused', reason: 'O token destes fundos não é conhecido.' };
    return this.uow.run(this.origin(context), async (tx) => {
      const known = await findRefund(tx.manager, event.return_id);
      if (known) return known;
      return this.keep(
        tx,
        {
          refundId: event.return_id,
          paymentId: event.payment_id,
          fundsId: event.funds_id,
          reason: event.reason,
        },
        plan,
        token ? { mint: token.mint, decimals: token.decimals! } : null,
        context,
      );
    });
  }

  /** Who sent each recorded transfer (the owner of the token account it debited), read on chain. */
  private async payersOf(
    rows: ReadonlyArray<{ signature: string; reference: string; instruction: string; amount: string }>,
    context: MessageContext,
  ): Promise<PayingTransfer[]> {
    const paying: PayingTransfer[] = [];
    for (const row of rows) {
      const owner = await this.onChain(context, () => this.chain.payerOf(row));
      if (owner) paying.push({ owner, amount: BigInt(row.amount) });
    }
    return paying;
  }

  /** Stores a transfer out as planned; one that cannot be carried out is stored failed and reported at once. */
  private async keep(
    tx: Transaction,
    what: Pick<CryptoRefundEntity, 'refundId' | 'paymentId' | 'fundsId' | 'reason'>,
    plan: RefundPlan,
    token: { mint: string; decimals: number } | null,
    context: MessageContext,
  ): Promise<CryptoRefundEntity> {
    const refund = await insertRefund(tx.manager, {
      ...what,
      ...(plan.kind === 'payouts'
        ? {
            status: 'pending' as const,
            mint: token!.mint,
            decimals: token!.decimals,
            amountBaseUnits: plan.total,
            recipients: plan.payouts,
            failureReason: null,
          }
        : {
            status: 'failed' as const,
            mint: null,
            decimals: null,
            amountBaseUnits: null,
            recipients: [],
            failureReason: plan.reason,
          }),
      signature: null,
      signedTransaction: null,
      lastValidBlockHeight: null,
      blockhash: null,
      computeUnitPrice: null,
    });
    if (refund.status === 'failed') {
      context.logger.warn(
        { refund_id: refund.refundId, failure_reason: refund.failureReason },
        'refund cannot be carried out',
      );
      await this.report(tx, refund);
    } else {
      context.logger.info(
        { refund_id: refund.refundId, payment_id: refund.paymentId, recipients: refund.recipients },
        'refund recorded',
      );
    }
    return refund;
  }

  /** Signs the first transaction and stores it before anything is sent; another delivery that got there first wins. */
  private async submit(refund: CryptoRefundEntity, context: MessageContext): Promise<CryptoRefundEntity> {
    const signed = await this.signed(refund, context, () => this.chain.signFresh(orderOf(refund)));
    if (!signed) return (await this.find(refund.refundId))!;
    if (await markRefundSubmitted(this.dataSource.manager, refund.refundId, signed)) {
      refundAttempts.inc({ why: 'first' });
      context.logger.info(
        {
          refund_id: refund.refundId,
          signature: signed.signature,
          compute_unit_price: signed.computeUnitPrice,
        },
        'refund signed',
      );
    }
    return (await this.find(refund.refundId))!;
  }

  /**
   * A signed transaction for the refund on a new blockhash (none of its attempts can land); null when it cannot be
   * built (the refund is then failed and reported).
   */
  private async signed(
    refund: CryptoRefundEntity,
    context: MessageContext,
    sign: () => Promise<SignedRefund>,
  ): Promise<SignedRefund | null> {
    try {
      return await sign();
    } catch (err) {
      if (!(err instanceof RefundNotBuildable)) throw this.unavailable(context, err);
      await this.settle(refund, 'failed', err.message, context);
      return null;
    }
  }

  /**
   * Follows every attempt of the refund until the chain decides, within this delivery's wait: the first send of a
   * delivery sends the attempt on record again, each later one a higher-priced attempt on the same blockhash (the one
   * on record again once the price is at its cap); a new blockhash only once no attempt can land any more.
   */
  private async follow(submitted: CryptoRefundEntity, context: MessageContext): Promise<void> {
    let refund = submitted;
    let sentAt = 0;
    const waitUntil = Date.now() + this.settings.confirmationWaitMs;
    for (;;) {
      const signatures = await attemptedSignatures(
        this.dataSource.manager,
        refund.refundId,
        refund.blockhash,
      );
      const statuses = await this.onChain(context, () => this.chain.statuses(signatures));
      const fates = statuses.map((status, index) => ({
        signature: signatures[index]!,
        fate: fateOf(status),
      }));
      // A guard failure of a second attempt is only possible once another succeeded: success wins, and a failure
      // counts only when no other attempt is still landing.
      const decided =
        fates.find((one) => one.fate.kind === 'succeeded') ??
        (fates.some((one) => one.fate.kind === 'landing')
          ? undefined
          : fates.find((one) => one.fate.kind === 'failed'));
      if (decided) {
        await recordLandedAttempt(this.dataSource.manager, refund.refundId, decided.signature);
        const fate = decided.fate as { kind: 'succeeded' } | { kind: 'failed'; reason: string };
        await this.settle(
          { ...refund, signature: decided.signature },
          fate.kind,
          fate.kind === 'failed' ? fate.reason : null,
          context,
        );
        return;
      }
      if (fates.every((one) => one.fate.kind === 'unknown')) {
        if (await this.expired(refund, signatures, context)) {
          const renewed = await this.renew(refund, context);
          if (renewed.status !== 'submitted') return;
          refund = renewed;
          sentAt = 0;
          continue;
        }
        if (Date.now() - sentAt >= this.settings.resendIntervalMs) {
          if (sentAt > 0) refund = await this.raise(refund, context);
          if (refund.status !== 'submitted') return;
          sentAt = Date.now();
          // Whether the node took it is read from its status, never from this answer (it may be lost either way).
          const { signedTransaction } = refund;
          await this.chain
            .send(signedTransaction!)
            .catch((err: unknown) =>
              context.logger.warn({ refund_id: refund.refundId, err: String(err) }, 'refund send failed'),
            );
        }
      }
      if (Date.now() >= waitUntil) {
        context.logger.info(
          { refund_id: refund.refundId, signatures, fates: fates.map((one) => one.fate.kind) },
          'refund not confirmed yet: left to a redelivery',
        );
        throw new CommandError('SERVICE_UNAVAILABLE', 'O reembolso ainda não foi confirmado na rede.');
      }
      await new Promise((resolve) => setTimeout(resolve, this.settings.pollIntervalMs));
    }
  }

  /**
   * Whether no attempt can land any more: the chain is past their blockhash's last valid height and still knows none
   * of them (read after the height, so a landing just before it is seen).
   */
  private async expired(
    refund: CryptoRefundEntity,
    signatures: readonly string[],
    context: MessageContext,
  ): Promise<boolean> {
    const height = await this.onChain(context, () => this.chain.blockHeight());
    if (height <= refund.lastValidBlockHeight!) return false;
    const statuses = await this.onChain(context, () => this.chain.statuses(signatures));
    return statuses.every((status) => status === null);
  }

  /** A higher-priced attempt on the same blockhash, stored before it is sent; the one on record at the price cap. */
  private async raise(refund: CryptoRefundEntity, context: MessageContext): Promise<CryptoRefundEntity> {
    const previous = {
      blockhash: refund.blockhash!,
      lastValidBlockHeight: refund.lastValidBlockHeight!,
      computeUnitPrice: refund.computeUnitPrice ?? 0,
    };
    // A transaction signed before attempts were kept has no blockhash on record: it is only sent again.
    if (refund.blockhash === null) return refund;
    let signed: SignedRefund | null;
    try {
      signed = await this.chain.signHigher(orderOf(refund), previous);
    } catch (err) {
      // The same transaction at another price has the same size: an earlier attempt may still land, so the refund is
      // never failed here; the one on record is sent again.
      if (err instanceof RefundNotBuildable) return refund;
      throw this.unavailable(context, err);
    }
    if (!signed) return refund;
    if (await replaceRefundTransaction(this.dataSource.manager, refund.refundId, refund.signature, signed)) {
      refundAttempts.inc({ why: 'raised' });
      context.logger.info(
        {
          refund_id: refund.refundId,
          signature: signed.signature,
          compute_unit_price: signed.computeUnitPrice,
        },
        'refund not landed yet: signed again at a higher price on the same blockhash',
      );
    }
    return (await this.find(refund.refundId))!;
  }

  /** Replaces attempts that can no longer land with a new one on a fresh blockhash, stored before it is sent. */
  private async renew(refund: CryptoRefundEntity, context: MessageContext): Promise<CryptoRefundEntity> {
    const signed = await this.signed(refund, context, () => this.chain.signFresh(orderOf(refund)));
    if (
      signed &&
      (await replaceRefundTransaction(this.dataSource.manager, refund.refundId, refund.signature, signed))
    ) {
      refundAttempts.inc({ why: 'renewed' });
      context.logger.warn(
        { refund_id: refund.refundId, expired: refund.signature, signature: signed.signature },
        'refund transactions expired without landing: signed again on a new blockhash',
      );
    }
    return (await this.find(refund.refundId))!;
  }

  /**
   * Ends the refund with the transaction on record and reports it, in one transaction; only the delivery that moves
   * it reports it, so crypto.refund.settled.v1 is emitted once.
   */
  private async settle(
    refund: CryptoRefundEntity,
    outcome: 'succeeded' | 'failed',
    failureReason: string | null,
    context: MessageContext,
  ): Promise<void> {
    await this.uow.run(this.origin(context), async (tx) => {
      if (!(await endRefund(tx.manager, refund.refundId, refund.signature, outcome, failureReason))) return;
      refundsSettled.inc({ outcome });
      context.logger.info(
        { refund_id: refund.refundId, signature: refund.signature, outcome, failure_reason: failureReason },
        'refund settled',
      );
      await this.report(tx, { ...refund, status: outcome, failureReason });
    });
  }

  private report(
    tx: Transaction,
    refund: Pick<
      CryptoRefundEntity,
      'refundId' | 'paymentId' | 'fundsId' | 'status' | 'signature' | 'failureReason'
    >,
  ) {
    const outcome = {
      outcome: refund.status === 'succeeded' ? ('succeeded' as const) : ('failed' as const),
      external_id: refund.signature,
      failure_reason: refund.failureReason,
    };
    if (refund.fundsId !== null)
      return tx.emit(cryptoFundsReturnSettled, {
        return_id: refund.refundId,
        funds_id: refund.fundsId,
        ...outcome,
      });
    return tx.emit(cryptoRefundSettled, {
      refund_id: refund.refundId,
      payment_id: refund.paymentId,
      ...outcome,
    });
  }

  /** A chain request; its failure is transient (the broker tries the message again later). */
  private async onChain<T>(context: MessageContext, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (err) {
      throw this.unavailable(context, err);
    }
  }

  private unavailable(context: MessageContext, err: unknown): CommandError {
    context.logger.warn({ err: String(err) }, 'chain request for a refund failed');
    return chainUnavailable();
  }

  private origin(context: MessageContext) {
    return { correlationId: context.envelope.correlation_id, causationId: context.envelope.id };
  }
}

/** What the refund's transactions pay, as recorded. */
function orderOf(refund: CryptoRefundEntity): RefundOrder {
  return {
    refundId: refund.refundId,
    mint: refund.mint!,
    decimals: refund.decimals!,
    recipients: refund.recipients,
    memo: refundMemo(refund.refundId, refund.reason),
  };
}
