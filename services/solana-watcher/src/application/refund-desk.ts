import type { DataSource } from 'typeorm';
import {
  cryptoFundsReturnSettled,
  cryptoRefundSettled,
  type FundsReturnRequested,
  type RefundRequested,
} from '@gateway/contracts';
import { CommandError, type MessageContext, type Transaction, type UnitOfWork } from '@gateway/messaging';
import { counter } from '@gateway/observability';
import { RefundNotBuildable, type RefundChain, type SignedRefund } from '../clients/refund-chain';
import {
  fateOf,
  planFundsReturn,
  planRefund,
  refundMemo,
  type PayingTransfer,
  type RefundPlan,
} from '../domain/refund';
import {
  committedRefundBaseUnits,
  endRefund,
  findRefund,
  insertRefund,
  lockRefundsOfPayment,
  markRefundSubmitted,
  payingTransfersOf,
  replaceRefundTransaction,
  transfersOfFunds,
  type CryptoRefundEntity,
} from '../persistence';

const refundsSettled = counter('solana_watcher_refunds_total', 'Refunds carried to their end, by outcome', [
  'outcome',
]);

export interface RefundDeskSettings {
  /** How long one delivery waits for its transaction to be confirmed before leaving it to a redelivery. */
  confirmationWaitMs: number;
  /** Between two status reads. */
  pollIntervalMs: number;
  /** Between two sends of the same bytes while the cluster does not know them (a node may have dropped them). */
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
 * transaction exists; the signed transaction's signature, bytes and blockhash validity are stored before it is sent;
 * every delivery then follows that signature: sends the same bytes again while the cluster does not know them, and
 * signs anew only once the blockhash has expired without it landing (it can no longer). It ends when the status is
 * confirmed, succeeded or failed with the chain's error, in the transaction that emits crypto.refund.settled.v1 once.
 * Chain requests happen outside any database transaction; while the chain has not decided, the delivery throws
 * SERVICE_UNAVAILABLE for the broker to try again with backoff. The operator's return of held funds to their payer
 * goes the same way (`carryOutReturn`), reported by crypto.funds-return.settled.v1.
 */
export class RefundDesk {
  constructor(
    private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
    private readonly chain: RefundChain,
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

  private async proceed(recorded: CryptoRefundEntity, context: MessageContext): Promise<void> {
    let refund = recorded;
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
    const signed = await this.sign(refund, context);
    if (!signed) return (await this.find(refund.refundId))!;
    if (await markRefundSubmitted(this.dataSource.manager, refund.refundId, signed))
      context.logger.info({ refund_id: refund.refundId, signature: signed.signature }, 'refund signed');
    return (await this.find(refund.refundId))!;
  }

  /** A signed transaction for the refund; null when it cannot be built (the refund is then failed and reported). */
  private async sign(refund: CryptoRefundEntity, context: MessageContext): Promise<SignedRefund | null> {
    try {
      return await this.chain.sign({
        mint: refund.mint!,
        decimals: refund.decimals!,
        recipients: refund.recipients,
        memo: refundMemo(refund.refundId, refund.reason),
      });
    } catch (err) {
      if (!(err instanceof RefundNotBuildable)) throw this.unavailable(context, err);
      await this.settle(refund, 'failed', err.message, context);
      return null;
    }
  }

  /** Follows the transaction on record until the chain decides, within this delivery's wait. */
  private async follow(submitted: CryptoRefundEntity, context: MessageContext): Promise<void> {
    let refund = submitted;
    let sentAt = 0;
    const waitUntil = Date.now() + this.settings.confirmationWaitMs;
    for (;;) {
      const fate = fateOf(await this.onChain(context, () => this.chain.status(refund.signature!)));
      if (fate.kind === 'succeeded' || fate.kind === 'failed') {
        await this.settle(refund, fate.kind, fate.kind === 'failed' ? fate.reason : null, context);
        return;
      }
      if (fate.kind === 'unknown') {
        if (await this.expired(refund, context)) {
          const replaced = await this.resign(refund, context);
          if (replaced.status !== 'submitted') return;
          refund = replaced;
          sentAt = 0;
          continue;
        }
        if (Date.now() - sentAt >= this.settings.resendIntervalMs) {
          sentAt = Date.now();
          // Whether the node took it is read from its status, never from this answer (it may be lost either way).
          await this.chain
            .send(refund.signedTransaction!)
            .catch((err: unknown) =>
              context.logger.warn({ refund_id: refund.refundId, err: String(err) }, 'refund send failed'),
            );
        }
      }
      if (Date.now() >= waitUntil) {
        context.logger.info(
          { refund_id: refund.refundId, signature: refund.signature, fate: fate.kind },
          'refund not confirmed yet: left to a redelivery',
        );
        throw new CommandError('SERVICE_UNAVAILABLE', 'O reembolso ainda não foi confirmado na rede.');
      }
      await new Promise((resolve) => setTimeout(resolve, this.settings.pollIntervalMs));
    }
  }

  /**
   * Whether the transaction on record can no longer land: the chain is past its blockhash's last valid height and
   * still does not know it (read after the height, so a landing just before it is seen).
   */
  private async expired(refund: CryptoRefundEntity, context: MessageContext): Promise<boolean> {
    const height = await this.onChain(context, () => this.chain.blockHeight());
    if (height <= refund.lastValidBlockHeight!) return false;
    const status = await this.onChain(context, () => this.chain.status(refund.signature!));
    return status === null;
  }

  /** Replaces a transaction that can no longer land with a new one, stored before it is sent. */
  private async resign(refund: CryptoRefundEntity, context: MessageContext): Promise<CryptoRefundEntity> {
    const signed = await this.sign(refund, context);
    if (signed) {
      await replaceRefundTransaction(this.dataSource.manager, refund.refundId, refund.signature, signed);
      context.logger.warn(
        { refund_id: refund.refundId, expired: refund.signature, signature: signed.signature },
        'refund transaction expired without landing: signed again',
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
