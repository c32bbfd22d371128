import { randomBytes, randomInt } from 'node:crypto';
import { Client } from 'pg';
import { SANDBOX_PSP_CLIENT } from '@gateway/config';
import { MIN_AMOUNT_CENTAVOS } from '@gateway/contracts';
import { daysAfter, letTimePass, pspToday } from '@gateway/testkit-core';

export interface LoadBusiness {
  label: string;
  businessId: string;
  apiKey: string;
}

/** A payment the gateway answered 201 for. */
export interface CreatedPayment {
  idempotencyKey: string;
  business: LoadBusiness;
  method: 'pix' | 'crypto';
  amountCentavos: number;
  paymentId: string;
  createdAt: number;
  /** When the sandbox accepted (202) the request to pay it. */
  paidRequestedAt?: number;
  /** Paid more than its amount (`excess`), or paid at the PSP after it expired (`late`): money held in suspense. */
  suspense?: 'excess' | 'late';
}

/** Money held in suspense that the operator returned through the rail or assigned to the payment's business. */
export interface SettledHeldFunds {
  fundsId: string;
  payment: CreatedPayment;
  action: 'return' | 'assign';
  at: number;
}

/** An operator's credit to a business that got a 201. */
export interface CreatedAdjustment {
  idempotencyKey: string;
  business: LoadBusiness;
  amountCentavos: number;
  adjustmentId: string;
  createdAt: number;
}

/** What the load needs to act as the operator and as a payer's bank at the PSP. */
export interface LoadOperator {
  adminToken: string;
  /** The PSP simulator, called directly as a payer's bank calls it. */
  pspUrl: string;
  /** The database, read for a PIX payment's txid (which only the payment service keeps). */
  databaseUrl: string;
}

/** A payout the gateway answered 201 for. */
export interface CreatedPayout {
  idempotencyKey: string;
  business: LoadBusiness;
  amountCentavos: number;
  payoutId: string;
  createdAt: number;
}

/** A refund the gateway answered 201 for. */
export interface CreatedRefund {
  idempotencyKey: string;
  business: LoadBusiness;
  paymentId: string;
  /** What was asked for; null asks for everything still refundable. */
  amountCentavos: number | null;
  refundId: string;
  createdAt: number;
}

/** A subscription the gateway answered 201 for, and what the load did with it. */
export interface CreatedSubscription {
  idempotencyKey: string;
  business: LoadBusiness;
  subscriptionId: string;
  amountCentavos: number;
  retryPolicy: 'none' | 'three_in_seven_days';
  createdAt: number;
  /** The sandbox authorization was accepted (202). */
  authorizeRequested: boolean;
  /** The last day its clock was asked to move to (202). */
  advancedTo?: string;
  /** The cycle whose debit the load asked the payer's bank to fail. */
  failedCycle?: number;
  /** A merchant's cancel (answered 200) sent together with a move of the clock past the next cycle's due date. */
  cancelledDuringDebit?: number;
}

/** A request and what went wrong with it. */
export interface ClientFailure {
  at: number;
  request: string;
  outcome: string;
}

/** One attempt of a request, as its client saw it. */
export interface AttemptRecord {
  path: string;
  sentAt: number;
  endedAt: number;
  /** The HTTP status it was answered with, or the network error that ended it (`network error: ...`). */
  outcome: number | string;
}

/** A request that needed more than one attempt: how long its client waited for a real answer. */
export interface RetriedRequest {
  request: string;
  startedAt: number;
  /**
   * When the work the request waits for began, if earlier (a refund waits for its payment to be posted, which began
   * when the payment was asked to be paid): the faults since then are in its way too.
   */
  waitsSince?: number;
  endedAt: number;
  attempts: number;
  /** The answer of the last attempt that failed. */
  lastFault: string;
}

export interface LoadOptions {
  /** Clients running at once; each creates a payment, asks the sandbox to pay most of them, pauses, again. */
  clients: number;
  pauseMs: number;
  /** Share of payments asked to be paid (the rest stay open, and must get no confirmation). */
  paidShare: number;
  /** How long a client keeps retrying one request (503, network errors) before giving up. */
  giveUpAfterMs: number;
  /**
   * Every how many payments a client also asks for a payout of a small amount (the businesses have a payout account);
   * default 5. A payout over what is available is refused (422 INSUFFICIENT_BALANCE), which the load expects early on.
   */
  payoutEvery?: number;
  /**
   * Every how many payments a client also refunds (part of, or all of) a PIX payment it had paid, once it is paid;
   * default 4. A refund the balance cannot cover is refused (422 INSUFFICIENT_BALANCE), which the load accepts.
   */
  refundEvery?: number;
  /**
   * Every how many payments a client also makes money the platform holds in suspense (with an operator): a PIX paid
   * more than its amount, or one paid at the PSP after it expired, in turn; then the operator returns the held funds
   * through the rail or assigns them to the business, in turn. Default 6.
   */
  suspenseEvery?: number;
  /** Every how many payments a client also has the operator credit a business (an adjustment); default 8. */
  adjustmentEvery?: number;
  /**
   * Clients that each make subscriptions one after another (default 0; needs the operator's PSP URL): a monthly
   * subscription by Pix Automático authorized by the sandbox payer's bank, its clock moved through
   * `cyclesPerSubscription` due dates (one debit failed on request), then, every other one, a merchant's cancel sent
   * together with a move over the next due date.
   */
  subscriptionClients?: number;
  /** Cycles each subscription of the load is moved through before its cancel race; default 3. */
  cyclesPerSubscription?: number;
}

/** A refund with this reason fails at the PSP simulator (its devolução ends NAO_REALIZADO). */
const FAILING_REFUND_REASON = 'simulate:fail';

/** How long a client waits for a payment it had paid to read `paid` before it refunds another instead. */
const PAID_BEFORE_REFUND_MS = 30_000;

/** The payouts of the load are small, so most find the money they ask for. */
const MAX_PAYOUT_CENTAVOS = 5_000;

/** How long a client waits for money it paid aside to be held (or a payment to expire) before it moves on. */
const HELD_FUNDS_WAIT_MS = 30_000;

/**
 * How long a subscription client waits for its subscription to be active, or its clock at the day asked: past a cycle
 * open's first back-off (a minute) and the scheduler's next pass.
 */
const SUBSCRIPTION_STEP_MS = 120_000;

/** The sandbox payer of the load's subscriptions: a valid CPF and the account their bank debits. */
const SUBSCRIBER = {
  name: 'Assinante da Carga',
  document_number: '52998224725',
  payer_account: { ispb: '60701190', branch: '0001', account: '123456' },
};

/** The excess of an overpaid PIX, and the adjustments, are small amounts. */
const MAX_SMALL_CENTAVOS = 3_000;

const ATTEMPT_TIMEOUT_MS = 15_000;
const MAX_BACKOFF_MS = 5_000;

/**
 * Steady PIX and crypto traffic through the public API, as a careful merchant sends it: every POST carries an
 * `Idempotency-Key`, and a 503 or a network error is retried with the same key (honouring `Retry-After`).
 */
export class LoadGenerator {
  readonly created: CreatedPayment[] = [];
  readonly payouts: CreatedPayout[] = [];
  /** Payouts refused for want of available money (expected while the first payments settle). */
  payoutsRefusedForBalance = 0;
  /** Every payment id a 201 named, per idempotency key (more than one id is a duplicate). */
  readonly idsByKey = new Map<string, Set<string>>();
  /** Every payout id a 201 named, per idempotency key. */
  readonly payoutIdsByKey = new Map<string, Set<string>>();
  readonly refunds: CreatedRefund[] = [];
  /** Refunds refused for want of balance (the payment's money already paid out). */
  refundsRefusedForBalance = 0;
  /** Every refund id a 201 named, per idempotency key. */
  readonly refundIdsByKey = new Map<string, Set<string>>();
  /** Held funds the operator returned or assigned (its answer was 200). */
  readonly settledHeldFunds: SettledHeldFunds[] = [];
  readonly adjustments: CreatedAdjustment[] = [];
  readonly subscriptions: CreatedSubscription[] = [];
  /** Every subscription id a 201 named, per idempotency key. */
  readonly subscriptionIdsByKey = new Map<string, Set<string>>();
  /** Every adjustment id a 201 named, per idempotency key. */
  readonly adjustmentIdsByKey = new Map<string, Set<string>>();
  /** PIX payments asked to be paid and not refunded yet, the oldest first. */
  private readonly refundable: CreatedPayment[] = [];
  /** Answers no client may ever get (a 5xx other than 503), and requests the client had to give up on. */
  readonly failures: ClientFailure[] = [];
  /** Refusals (4xx) of requests that are all valid: each should have succeeded once the fault passed. */
  readonly unexpected: ClientFailure[] = [];
  readonly retried: RetriedRequest[] = [];
  /** Every attempt that ended, in the order they ended. */
  readonly attempts: AttemptRecord[] = [];
  retries = 0;
  serviceUnavailable = 0;
  requests = 0;
  /** When each attempt now waiting for its answer was sent. */
  private readonly attemptsInFlight = new Set<{ path: string; sentAt: number }>();
  private running = false;
  private readonly loops: Array<Promise<void>> = [];
  private readonly run = randomBytes(4).toString('hex');
  private sequence = 0;
  private payoutSequence = 0;
  private refundSequence = 0;
  private suspenseSequence = 0;
  private adjustmentSequence = 0;
  private subscriptionSequence = 0;

  constructor(
    private readonly gatewayUrl: string,
    private readonly businesses: LoadBusiness[],
    private readonly options: LoadOptions,
    /** Without it the load makes no money in suspense and no adjustments. */
    private readonly operator?: LoadOperator,
  ) {}

  start(): void {
    this.running = true;
    for (let i = 0; i < this.options.clients; i += 1) this.loops.push(this.client());
    if (this.operator)
      for (let i = 0; i < (this.options.subscriptionClients ?? 0); i += 1)
        this.loops.push(this.subscriptionClient());
  }

  /** Stops starting new payments and waits for the ones under way. */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  private async client(): Promise<void> {
    for (let round = 1; this.running; round += 1) {
      await this.onePayment();
      if (round % (this.options.payoutEvery ?? 5) === 0) await this.onePayout();
      if (round % (this.options.refundEvery ?? 4) === 0) await this.oneRefund();
      if (this.operator && round % (this.options.suspenseEvery ?? 6) === 0) await this.oneHeldFunds();
      if (this.operator && round % (this.options.adjustmentEvery ?? 8) === 0) await this.oneAdjustment();
      await letTimePass(this.options.pauseMs);
    }
  }

  private async subscriptionClient(): Promise<void> {
    while (this.running) {
      await this.oneSubscription();
      await letTimePass(this.options.pauseMs);
    }
  }

  /**
   * One subscription's life: created for a new customer, authorized by the sandbox payer's bank, its clock moved over
   * each cycle's due date in turn (the second cycle's debit failed on request: retried under `three_in_seven_days`,
   * failed under `none`); then, every other one, a cancel sent together with a move over the next due date, so the
   * debit and the cancel race. Every POST under its own Idempotency-Key, retried through faults as any other.
   */
  private async oneSubscription(): Promise<void> {
    const n = (this.subscriptionSequence += 1);
    const business = this.businesses[n % this.businesses.length]!;
    const idempotencyKey = `load-${this.run}-subscription-${n}`;
    const customer = await this.post(
      business,
      '/v1/customers',
      { name: SUBSCRIBER.name, document_number: SUBSCRIBER.document_number },
      `${idempotencyKey}-customer`,
    );
    if (customer?.status !== 201) {
      if (customer) this.unexpectedAnswer('POST /v1/customers', customer);
      return;
    }
    const today = await this.eventually(
      () => pspToday(this.operator!.pspUrl).catch(() => undefined),
      SUBSCRIPTION_STEP_MS,
    );
    if (!today) return;
    const retryPolicy = n % 2 === 0 ? 'three_in_seven_days' : 'none';
    const amountCentavos = randomInt(MIN_AMOUNT_CENTAVOS, 50_000);
    const body = {
      customer_id: customer.json.customer_id,
      amount: amountCentavos,
      interval: 'monthly',
      // Past the 3 days a push journey needs, with a day to spare should São Paulo's day turn meanwhile.
      start_date: daysAfter(today, 4),
      retry_policy: retryPolicy,
      authorization: { journey: 'push', payer_account: SUBSCRIBER.payer_account },
    };
    const created = await this.post(business, '/v1/subscriptions', body, idempotencyKey);
    if (created?.status !== 201) {
      if (created) this.unexpectedAnswer('POST /v1/subscriptions', created);
      return;
    }
    const subscriptionId = String(created.json.subscription_id);
    const ids = this.subscriptionIdsByKey.get(idempotencyKey) ?? new Set<string>();
    this.subscriptionIdsByKey.set(idempotencyKey, ids.add(subscriptionId));
    const subscription: CreatedSubscription = {
      idempotencyKey,
      business,
      subscriptionId,
      amountCentavos,
      retryPolicy,
      createdAt: Date.now(),
      authorizeRequested: false,
    };
    this.subscriptions.push(subscription);
    const path = `/v1/subscriptions/${subscriptionId}`;
    const sandbox = `/v1/sandbox/subscriptions/${subscriptionId}`;
    const authorized = await this.post(
      business,
      `${sandbox}/simulate`,
      { outcome: 'authorize' },
      `${idempotencyKey}-authorize`,
    );
    if (authorized?.status !== 202 && !doneBefore(authorized)) {
      if (authorized) this.unexpectedAnswer(`POST ${sandbox}/simulate`, authorized);
      return;
    }
    subscription.authorizeRequested = true;
    const readWhen = (ready: (read: Record<string, unknown>) => boolean) =>
      this.eventually(async () => {
        const read = await this.read(business, path);
        return read && ready(read) ? read : undefined;
      }, SUBSCRIPTION_STEP_MS);
    let read = await readWhen((s) => s.status === 'active');
    const cycles = this.options.cyclesPerSubscription ?? 3;
    // Every other pair of subscriptions races a cancel with a debit: both retry policies do.
    const races = Math.floor(n / 2) % 2 === 1;
    for (let cycle = 1; read && cycle <= cycles + (races ? 1 : 0); cycle += 1) {
      const due = String(read.next_due_date);
      const race = cycle > cycles;
      if (cycle === 2) {
        const failed = await this.post(
          business,
          `${sandbox}/simulate`,
          { outcome: 'fail_next_cycle' },
          `${idempotencyKey}-fail-${cycle}`,
        );
        if (failed?.status !== 202) {
          if (failed) this.unexpectedAnswer(`POST ${sandbox}/simulate`, failed);
          return;
        }
        subscription.failedCycle = cycle;
      }
      if (race) {
        // The cycle opened first (its send day, 7 days before it is due), so the cancel races its debit at the PSP.
        const sendDay = daysAfter(due, -7);
        const opened = await this.post(
          business,
          `${sandbox}/advance`,
          { to: sendDay },
          `${idempotencyKey}-advance-${cycle}-open`,
        );
        if (opened?.status !== 202) {
          if (opened) this.unexpectedAnswer(`POST ${sandbox}/advance`, opened);
          return;
        }
        subscription.advancedTo = sendDay;
        if (!(await readWhen((s) => s.current_date === sendDay))) return;
      }
      // Past the due date and, for a failed debit, its retries (the next day's at the latest in the sandbox).
      const to = daysAfter(due, race ? 1 : 3);
      const advance = this.post(business, `${sandbox}/advance`, { to }, `${idempotencyKey}-advance-${cycle}`);
      // The cancel a moment after the move starts (0 to 4 s), to land sometimes before the debit, sometimes after
      // it: sent within 1.5 s, it came first in every race of three runs (the move steps the PSP's clock day by day).
      const cancel = race
        ? letTimePass(randomInt(0, 4_000)).then(() =>
            this.post(business, `${path}/cancel`, {}, `${idempotencyKey}-cancel`),
          )
        : Promise.resolve(undefined);
      const [advanced, cancelled] = await Promise.all([advance, cancel]);
      if (advanced?.status !== 202) {
        if (advanced) this.unexpectedAnswer(`POST ${sandbox}/advance`, advanced);
        return;
      }
      subscription.advancedTo = to;
      if (race) {
        if (cancelled?.status === 200 || doneBefore(cancelled)) subscription.cancelledDuringDebit = cycle;
        else if (cancelled) this.unexpectedAnswer(`POST ${path}/cancel`, cancelled);
        return;
      }
      read = await readWhen((s) => s.current_date === to);
    }
  }

  /** A payout of a small amount to the business's registered account, under its own Idempotency-Key. */
  private async onePayout(): Promise<void> {
    const n = (this.payoutSequence += 1);
    const business = this.businesses[n % this.businesses.length]!;
    const amountCentavos = randomInt(MIN_AMOUNT_CENTAVOS, MAX_PAYOUT_CENTAVOS);
    const idempotencyKey = `load-${this.run}-payout-${n}`;
    const answer = await this.post(business, '/v1/payouts', { amount: amountCentavos }, idempotencyKey);
    if (answer?.status === 201) {
      const payoutId = String(answer.json.payout_id);
      this.payouts.push({ idempotencyKey, business, amountCentavos, payoutId, createdAt: Date.now() });
      const ids = this.payoutIdsByKey.get(idempotencyKey) ?? new Set<string>();
      this.payoutIdsByKey.set(idempotencyKey, ids.add(payoutId));
    } else if (
      answer?.status === 422 &&
      (answer.json.error as { code?: unknown } | undefined)?.code === 'INSUFFICIENT_BALANCE'
    )
      this.payoutsRefusedForBalance += 1;
    else if (answer) this.unexpectedAnswer('POST /v1/payouts', answer);
  }

  /**
   * A refund of the oldest PIX payment asked to be paid, once it reads `paid`: all of it every third time, else a
   * part, under its own Idempotency-Key; every fourth is one the PSP refuses. A payment that does not read paid in time is left alone (the invariants
   * tell whether it ever was).
   */
  private async oneRefund(): Promise<void> {
    const payment = this.refundable.shift();
    if (!payment) return;
    const deadline = Date.now() + PAID_BEFORE_REFUND_MS;
    while ((await this.statusOf(payment)) !== 'paid') {
      if (Date.now() > deadline || !this.running) return;
      await letTimePass(500);
    }
    const n = (this.refundSequence += 1);
    const amountCentavos = n % 3 === 0 ? null : randomInt(MIN_AMOUNT_CENTAVOS, payment.amountCentavos + 1);
    const idempotencyKey = `load-${this.run}-refund-${n}`;
    const path = `/v1/payments/${payment.paymentId}/refunds`;
    // Every fourth one fails at the PSP (the simulator's sandbox rule), so its reservation goes back under faults too.
    const body = {
      ...(amountCentavos === null ? {} : { amount: amountCentavos }),
      ...(n % 4 === 0 ? { reason: FAILING_REFUND_REASON } : {}),
    };
    // The refund waits for the ledger to post its payment, under way since the payment was asked to be paid.
    const answer = await this.post(payment.business, path, body, idempotencyKey, payment.paidRequestedAt);
    if (answer?.status === 201) {
      const refundId = String(answer.json.refund_id);
      const { business, paymentId } = payment;
      this.refunds.push({
        idempotencyKey,
        business,
        paymentId,
        amountCentavos,
        refundId,
        createdAt: Date.now(),
      });
      const ids = this.refundIdsByKey.get(idempotencyKey) ?? new Set<string>();
      this.refundIdsByKey.set(idempotencyKey, ids.add(refundId));
    } else if (
      answer?.status === 422 &&
      (answer.json.error as { code?: unknown } | undefined)?.code === 'INSUFFICIENT_BALANCE'
    )
      this.refundsRefusedForBalance += 1;
    else if (answer) this.unexpectedAnswer(`POST ${path}`, answer);
  }

  /** The payment's status as its business reads it; undefined while a fault keeps the answer away. */
  private async statusOf(payment: CreatedPayment): Promise<string | undefined> {
    const json = await this.read(payment.business, `/v1/payments/${payment.paymentId}`);
    return json ? String(json.status) : undefined;
  }

  /** A GET as its business (or the operator) reads it; undefined unless answered 200. */
  private async read(
    who: LoadBusiness | 'operator',
    path: string,
  ): Promise<Record<string, unknown> | undefined> {
    try {
      const response = await fetch(`${this.gatewayUrl}${path}`, {
        headers: this.credentialsOf(who),
        signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
      });
      const json = parseJson(await response.text());
      return response.status === 200 ? json : undefined;
    } catch {
      return undefined;
    }
  }

  private credentialsOf(who: LoadBusiness | 'operator'): Record<string, string> {
    return who === 'operator'
      ? { authorization: `Bearer ${this.operator?.adminToken ?? ''}` }
      : { 'x-api-key': who.apiKey };
  }

  /** Asks `ask` every half second until it answers something, for up to `ms` (undefined then, or once stopped). */
  private async eventually<T>(ask: () => Promise<T | undefined>, ms: number): Promise<T | undefined> {
    const deadline = Date.now() + ms;
    for (;;) {
      const answer = await ask();
      if (answer !== undefined) return answer;
      if (Date.now() > deadline || !this.running) return undefined;
      await letTimePass(500);
    }
  }

  /**
   * A PIX payment paid more than its amount, or paid at the PSP after it expired (the PSP's own window still open),
   * in turn; once the payment service holds the money, the operator returns it through the rail or assigns it to the
   * business, in turn.
   */
  private async oneHeldFunds(): Promise<void> {
    const n = (this.suspenseSequence += 1);
    const kind = n % 2 === 0 ? 'late' : 'excess';
    const amountCentavos = randomInt(MIN_AMOUNT_CENTAVOS, 50_000);
    const business = this.businesses[n % this.businesses.length]!;
    const payment = await this.createPayment(
      'pix',
      amountCentavos,
      `load-${this.run}-suspense-${n}`,
      business,
    );
    if (!payment) return;
    payment.suspense = kind;
    const path = `/v1/sandbox/payments/${payment.paymentId}/simulate`;
    const body =
      kind === 'excess'
        ? { outcome: 'paid', amount: amountCentavos + randomInt(1, MAX_SMALL_CENTAVOS) }
        : { outcome: 'expired' };
    const simulated = await this.post(payment.business, path, body, `${payment.idempotencyKey}-${kind}`);
    if (simulated?.status !== 202) {
      if (simulated) this.unexpectedAnswer(`POST ${path}`, simulated);
      return;
    }
    if (kind === 'excess') payment.paidRequestedAt = Date.now();
    else if (
      !(await this.eventually(
        async () => ((await this.statusOf(payment)) === 'expired' ? true : undefined),
        HELD_FUNDS_WAIT_MS,
      )) ||
      !(await this.payAtPsp(payment))
    )
      return;
    const fundsId = await this.eventually(async () => {
      const page = await this.read(payment.business, `/v1/payments/${payment.paymentId}/received-funds`);
      const held = (page?.data as Array<{ funds_id: string; status: string }> | undefined)?.find(
        (f) => f.status === 'held',
      );
      return held?.funds_id;
    }, HELD_FUNDS_WAIT_MS);
    if (!fundsId) return;
    const action = n % 4 < 2 ? 'return' : 'assign';
    const operatorPath = `/admin/v1/received-funds/${fundsId}/${action}`;
    const answer = await this.post('operator', operatorPath, {}, `${payment.idempotencyKey}-${action}`);
    // An assignment asked again after an attempt whose answer was lost finds the funds assigned already.
    const assignedBefore = action === 'assign' && doneBefore(answer);
    if (answer?.status === 200 || assignedBefore)
      this.settledHeldFunds.push({ fundsId, payment, action, at: Date.now() });
    else if (answer) this.unexpectedAnswer(`POST ${operatorPath}`, answer);
  }

  /**
   * Pays a PIX payment's charge at the PSP as the payer's bank does (its sandbox route), reading its txid from the
   * database, both tried again while a fault is in the way; false if it could not.
   */
  private async payAtPsp(payment: CreatedPayment): Promise<boolean> {
    const operator = this.operator!;
    const paid = await this.eventually(async () => {
      const db = new Client({ connectionString: operator.databaseUrl });
      try {
        await db.connect();
        const { rows } = await db.query<{ external_id: string | null }>(
          'SELECT external_id FROM payment.payments WHERE id = $1',
          [payment.paymentId],
        );
        const txid = rows[0]?.external_id;
        if (!txid) return undefined;
        const basic = Buffer.from(`${SANDBOX_PSP_CLIENT.id}:${SANDBOX_PSP_CLIENT.secret}`).toString('base64');
        const token = (await (
          await fetch(`${operator.pspUrl}/oauth/token`, {
            method: 'POST',
            headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
            body: 'grant_type=client_credentials',
            signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
          })
        ).json()) as { access_token: string };
        const response = await fetch(`${operator.pspUrl}/v2/cob/pagar/${txid}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json' },
          body: '{}',
          signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
        });
        return response.status === 200 ? true : undefined;
      } catch {
        return undefined;
      } finally {
        await db.end().catch(() => undefined);
      }
    }, this.options.giveUpAfterMs);
    if (!paid && this.running)
      this.failures.push({
        at: Date.now(),
        request: `POST /v2/cob/pagar (payment ${payment.paymentId})`,
        outcome: 'the PSP never took the late payment',
      });
    return paid === true;
  }

  /** The operator credits a business a small amount, under its own Idempotency-Key. */
  private async oneAdjustment(): Promise<void> {
    const n = (this.adjustmentSequence += 1);
    const business = this.businesses[n % this.businesses.length]!;
    const amountCentavos = randomInt(MIN_AMOUNT_CENTAVOS, MAX_SMALL_CENTAVOS);
    const idempotencyKey = `load-${this.run}-adjustment-${n}`;
    const body = { business_id: business.businessId, amount: amountCentavos, reason: 'goodwill credit' };
    const answer = await this.post('operator', '/admin/v1/adjustments', body, idempotencyKey);
    if (answer?.status !== 201) {
      if (answer) this.unexpectedAnswer('POST /admin/v1/adjustments', answer);
      return;
    }
    const adjustmentId = String(answer.json.id);
    this.adjustments.push({ idempotencyKey, business, amountCentavos, adjustmentId, createdAt: Date.now() });
    const ids = this.adjustmentIdsByKey.get(idempotencyKey) ?? new Set<string>();
    this.adjustmentIdsByKey.set(idempotencyKey, ids.add(adjustmentId));
  }

  /** A payment created under `idempotencyKey` (the key also kept in its metadata), once answered 201. */
  private async createPayment(
    method: 'pix' | 'crypto',
    amountCentavos: number,
    idempotencyKey: string,
    business: LoadBusiness,
  ): Promise<CreatedPayment | undefined> {
    const body = {
      payment_method: method,
      amount: amountCentavos,
      // The key travels in the payment itself, so the database can tell which key each payment came from.
      metadata: JSON.stringify({ load_key: idempotencyKey }),
      ...(method === 'crypto' ? { crypto: { currency: 'usdc', network: 'solana' } } : {}),
    };
    const created = await this.post(business, '/v1/payments', body, idempotencyKey);
    if (created?.status !== 201) {
      if (created) this.unexpectedAnswer('POST /v1/payments', created);
      return undefined;
    }
    const paymentId = String(created.json.payment_id);
    const ids = this.idsByKey.get(idempotencyKey) ?? new Set<string>();
    this.idsByKey.set(idempotencyKey, ids.add(paymentId));
    const payment: CreatedPayment = {
      idempotencyKey,
      business,
      method,
      amountCentavos,
      paymentId,
      createdAt: Date.now(),
    };
    this.created.push(payment);
    // The same key again, as a client that lost the first answer would: it must name the same payment.
    if (this.created.length % 10 === 0) {
      const replay = await this.post(business, '/v1/payments', body, idempotencyKey);
      if (replay?.status === 201) ids.add(String(replay.json.payment_id));
      else if (replay) this.unexpectedAnswer('POST /v1/payments (replay)', replay);
    }
    return payment;
  }

  private async onePayment(): Promise<void> {
    const n = (this.sequence += 1);
    const business = this.businesses[n % this.businesses.length]!;
    const method = n % 2 === 0 ? 'pix' : 'crypto';
    const amountCentavos = randomInt(MIN_AMOUNT_CENTAVOS, 500_000);
    const payment = await this.createPayment(method, amountCentavos, `load-${this.run}-${n}`, business);
    if (!payment) return;
    const { paymentId, idempotencyKey } = payment;
    if (Math.random() >= this.options.paidShare) return;
    const path = `/v1/sandbox/payments/${paymentId}/simulate`;
    const paid = await this.post(business, path, { outcome: 'paid' }, `${idempotencyKey}-paid`);
    if (paid?.status === 202) {
      payment.paidRequestedAt = Date.now();
      if (method === 'pix') this.refundable.push(payment);
    } else if (paid) this.unexpectedAnswer(`POST ${path}`, paid);
  }

  private unexpectedAnswer(request: string, answer: { status: number; json: Record<string, unknown> }): void {
    this.unexpected.push({
      at: Date.now(),
      request,
      outcome: `${answer.status} ${JSON.stringify(answer.json)}`,
    });
  }

  /** The attempts waiting for their answer now that were sent at least `ms` ago. */
  attemptsInFlightFor(ms: number): number {
    return [...this.attemptsInFlight].filter((a) => a.sentAt <= Date.now() - ms).length;
  }

  /** How long the oldest attempt still waiting for its answer has waited (0 when none is); `kind` narrows to one. */
  oldestAttemptInFlightMs(kind?: RequestKind): number {
    const sent = [...this.attemptsInFlight]
      .filter((a) => kind === undefined || kindOf(a) === kind)
      .map((a) => a.sentAt);
    return sent.length === 0 ? 0 : Date.now() - Math.min(...sent);
  }

  get longestRetryMs(): number {
    return Math.max(0, ...this.retried.map((r) => r.endedAt - r.startedAt));
  }

  /** One request until it gets an answer that is not a fault (or the client gives up: undefined). */
  private async post(
    who: LoadBusiness | 'operator',
    path: string,
    body: unknown,
    idempotencyKey: string,
    waitsSince?: number,
  ): Promise<{ status: number; json: Record<string, unknown>; attempts: number } | undefined> {
    const started = Date.now();
    const request = `POST ${path} (${who === 'operator' ? 'operator' : who.label}, key ${idempotencyKey})`;
    let lastFault = '';
    const ended = (attempts: number) => {
      if (attempts > 1)
        this.retried.push({
          request,
          startedAt: started,
          ...(waitsSince === undefined ? {} : { waitsSince }),
          endedAt: Date.now(),
          attempts,
          lastFault,
        });
    };
    for (let attempt = 1; ; attempt += 1) {
      if (attempt > 1) this.retries += 1;
      this.requests += 1;
      let retryAfterMs: number | undefined;
      let outcome: string;
      const inFlight = { path, sentAt: Date.now() };
      this.attemptsInFlight.add(inFlight);
      try {
        const response = await fetch(`${this.gatewayUrl}${path}`, {
          method: 'POST',
          headers: {
            ...this.credentialsOf(who),
            'content-type': 'application/json',
            'idempotency-key': idempotencyKey,
          },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
        });
        const text = await response.text();
        this.attempts.push({ path, sentAt: inFlight.sentAt, endedAt: Date.now(), outcome: response.status });
        if (response.status !== 503 && response.status < 500) {
          ended(attempt);
          return { status: response.status, json: parseJson(text), attempts: attempt };
        }
        outcome = `${response.status} ${text.slice(0, 300)}`;
        if (response.status === 503) {
          this.serviceUnavailable += 1;
          const retryAfter = Number(response.headers.get('retry-after'));
          if (Number.isFinite(retryAfter) && retryAfter > 0) retryAfterMs = retryAfter * 1000;
          // A fault must read as the contract's SERVICE_UNAVAILABLE with a Retry-After, or clients cannot pace.
          const code = (parseJson(text).error as { code?: unknown } | undefined)?.code;
          if (!(retryAfter > 0) || code !== 'SERVICE_UNAVAILABLE')
            this.failures.push({
              at: Date.now(),
              request,
              outcome: `503 without Retry-After or code: ${outcome}`,
            });
        } else {
          // A fault must read as 503; any other 5xx is a failure, retried all the same to keep the flow going.
          this.failures.push({ at: Date.now(), request, outcome });
        }
      } catch (err) {
        outcome = `network error: ${(err as Error).cause ? String((err as Error).cause) : String(err)}`;
        this.attempts.push({ path, sentAt: inFlight.sentAt, endedAt: Date.now(), outcome });
      } finally {
        this.attemptsInFlight.delete(inFlight);
      }
      lastFault = outcome;
      if (Date.now() - started > this.options.giveUpAfterMs) {
        ended(attempt);
        this.failures.push({
          at: Date.now(),
          request,
          outcome: `gave up after ${attempt} attempts in ${Date.now() - started} ms; last: ${outcome}`,
        });
        return undefined;
      }
      const backoff = Math.min(MAX_BACKOFF_MS, 200 * 2 ** Math.min(attempt, 5)) * (0.5 + Math.random() / 2);
      await letTimePass(Math.min(retryAfterMs ?? backoff, MAX_BACKOFF_MS));
    }
  }
}

/**
 * A state change asked again after an attempt that made it but whose answer a fault lost (a 503 releases the key, so
 * the retry runs again): the change is found made (`422 INVALID_STATUS`).
 */
function doneBefore(
  answer: { status: number; json: Record<string, unknown>; attempts: number } | undefined,
): boolean {
  return (
    answer?.status === 422 &&
    answer.attempts > 1 &&
    (answer.json.error as { code?: unknown } | undefined)?.code === 'INVALID_STATUS'
  );
}

/** What a request does: creates a payment (or a payout), or asks the sandbox to pay one. */
export type RequestKind = 'create' | 'simulate';

const kindOf = (attempt: { path: string }): RequestKind =>
  attempt.path.endsWith('/simulate') ? 'simulate' : 'create';

function parseJson(text: string): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { unparsable: text.slice(0, 300) };
  }
}
