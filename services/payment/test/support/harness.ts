import { randomBytes } from 'node:crypto';
import {
  advancePixRecurrenceClock,
  cancelPixRecurrence,
  openPixCycle,
  openPixRecurrence,
  simulatePixRecurrence,
  type OpenPixRecurrence,
  changeCryptoRequestAmount,
  changePixChargeAmount,
  createPayment,
  createReservation,
  releaseReservation,
  type CreateReservation,
  type ReservationOutcome,
  getCryptoRequestStatus,
  getPayment,
  getPixChargeStatus,
  openCryptoRequest,
  openPixCharge,
  type PixDue,
  simulateCryptoOutcome,
  simulatePixOutcome,
  submitPixMedDefence,
  newPublicId,
  pixChargePaid,
  setFeeRule,
  type CreatePayment,
  type ErrorCode,
  type MessageDefinition,
  type PaymentView,
  type CryptoRequest,
  type CryptoRequestStatus,
  type PixCharge,
  type PixChargeStatus,
  type RevisedCryptoRequest,
} from '@gateway/contracts';
import { CommandError, type Broker, type MessageContext } from '@gateway/messaging';
import {
  letTimePass,
  poisonedEnvelope,
  publishAndAwaitParking,
  serviceTestBed,
  startedForTheseTests,
  waitFor,
  type ParkedMessage,
  type ServiceTestBed,
} from '@gateway/testkit';
import { loadPaymentConfig } from '../../src/config';
import { startPaymentService, type PaymentService } from '../../src/main';
import { aPixChargePaid } from './rail-events';

/** What the rails' commands have in common: the payment they are about. */
type RailCommand = { payment_id: string };

/** The payment service's rail timeout in these tests, unless a test sets its own. */
const RAIL_TIMEOUT_MS = 1000;

export interface RailCall {
  name: string;
  messageId: string;
  payload: Record<string, unknown>;
  /** When the rail received it (ms since the epoch). */
  at: number;
}

/**
 * Stands in for the PIX adapter and the Solana watcher on the broker: answers their commands (deduplicating by
 * message id, as their inboxes do), records every call, and can go silent to play a rail that times out.
 */
export class FakeRails {
  silent = false;
  /** A code the rails refuse opens with (a PSP rejecting the cob), when set. */
  refusal: ErrorCode | undefined;
  /** How long the rails take to answer opens and amount changes (a slow PSP or chain), within the timeout. */
  delayMs = 0;
  /** What a status question about a payment is answered; a payment not here is still open with nothing received. */
  readonly statuses = new Map<string, PixChargeStatus | CryptoRequestStatus>();
  /** What the watcher answers the replaced request had received, on a crypto amount change. */
  receivedBeforeAmountChange = '0';
  /** Plays a PIX adapter older than due dates: it ignores `due` and opens an immediate charge. */
  ignoresDue = false;
  /** A code the adapter refuses a recurrence's cancel with (the PSP ended it already), when set. */
  recurrenceCancelRefusal: ErrorCode | undefined;
  /** Cycles (payment ids) the PSP does not cancel with their recurrence (debited, or on their debit day). */
  readonly cyclesKeptAtCancel = new Set<string>();
  /** Subscriptions whose cycles the adapter refuses to open (a cycle it can never send). */
  readonly cycleOpenRefusals = new Set<string>();
  /** Subscriptions whose cycles the adapter opens but answers too late: the payment service has given up waiting. */
  readonly cycleOpensAnsweredLate = new Set<string>();
  /** Runs once the PSP has a cycle's cobr and before the adapter answers (a cancel landing during the open). */
  whileOpeningCycle: ((subscriptionId: string) => Promise<void>) | undefined;
  readonly calls: RailCall[] = [];
  /** Each crypto payment's current reference, so an amount change can name the one it replaces. */
  private readonly references = new Map<string, string>();
  private readonly answered = new Map<string, unknown>();
  private revision = 0;

  constructor(readonly broker: Broker) {}

  async start(): Promise<void> {
    // A charge with a due date answers its due date and last payable day (here the due date plus its days after,
    // unmoved: the adapter's calendar is its own tests' business).
    const pixCharge = (payload: RailCommand & { due?: PixDue | null }): PixCharge => ({
      txid: randomBytes(16).toString('hex'),
      qr_code: 'data:image/png;base64,AAAA',
      copia_e_cola: `00020101021226${(this.revision += 1)}`,
      expires_at: new Date(Date.now() + 3600_000).toISOString(),
      ...(payload.due && !this.ignoresDue
        ? {
            due_date: payload.due.date,
            payable_until: new Date(
              Date.parse(`${payload.due.date}T00:00:00Z`) +
                (payload.due.payable_days_after ?? 30) * 86_400_000,
            )
              .toISOString()
              .slice(0, 10),
          }
        : {}),
    });
    const cryptoRequest = (): CryptoRequest => ({
      reference: randomBytes(16).toString('hex'),
      currency: 'usdc',
      network: 'solana',
      qr_code: 'data:image/png;base64,BBBB',
      payment_link: `solana:wallet?amount=1&r=${(this.revision += 1)}`,
      wallet_address: 'wallet',
      amount_base_units: '1000000',
      decimals: 6,
      expires_at: new Date(Date.now() + 1800_000).toISOString(),
    });
    const accepted = () => ({ accepted: true as const });
    const openedRequest = (payload: RailCommand): CryptoRequest => {
      const request = cryptoRequest();
      this.references.set(payload.payment_id, request.reference);
      return request;
    };
    const revisedRequest = (payload: RailCommand): RevisedCryptoRequest => {
      const reference = this.references.get(payload.payment_id);
      if (!reference) throw new Error(`no crypto request opened for ${payload.payment_id}`);
      const superseded = { reference, received_base_units: this.receivedBeforeAmountChange };
      return { ...openedRequest(payload), superseded };
    };
    const status =
      <S extends PixChargeStatus | CryptoRequestStatus>(open: (paymentId: string) => S) =>
      async (payload: RailCommand, context: MessageContext): Promise<S> => {
        const paymentId = payload.payment_id;
        this.calls.push({
          name: context.envelope.name,
          messageId: context.envelope.id,
          payload,
          at: Date.now(),
        });
        return (this.statuses.get(paymentId) as S | undefined) ?? open(paymentId);
      };
    const openCharge = (): PixChargeStatus => ({ txid: 'txid', status: 'active', pix: [], closure: null });
    const openRequest = (paymentId: string): CryptoRequestStatus => ({
      reference: this.references.get(paymentId) ?? 'reference',
      status: 'open',
      received_base_units: '0',
      settlement: null,
      closure: null,
    });
    const slow =
      <R>(make: (payload: RailCommand) => R) =>
      async (payload: RailCommand): Promise<R> => {
        if (this.delayMs > 0) await letTimePass(this.delayMs);
        return make(payload);
      };
    // Pix Automático: the recurrence, its cycles' cobr (txid derived from the cycle's payment, as the adapter's is), and
    // the sandbox's payer bank and clock, answered as the adapter answers them.
    const recurrence = async (opening: OpenPixRecurrence) => {
      if (this.delayMs > 0) await letTimePass(this.delayMs);
      const qr = opening.journey === 'push' ? null : pixCharge({ payment_id: opening.subscription_id });
      return {
        recurrence_id: `RR${randomBytes(14).toString('hex')}`,
        authorization: qr && {
          qr_code: qr.qr_code,
          copia_e_cola: qr.copia_e_cola,
          expires_at: qr.expires_at,
        },
        first_payment_txid: opening.first_payment ? randomBytes(16).toString('hex') : null,
      };
    };
    const cancelled = () => {
      if (this.recurrenceCancelRefusal)
        throw new CommandError(this.recurrenceCancelRefusal, 'Recorrência já encerrada.');
      return { cancelled: true as const, kept_payment_ids: [...this.cyclesKeptAtCancel] };
    };
    await this.broker
      .handlers('pix-adapter')
      .handle(openPixCharge, this.answer(slow(pixCharge)))
      .handle(changePixChargeAmount, this.answer(slow(pixCharge)))
      .handle(simulatePixOutcome, this.answer(accepted))
      .handle(
        submitPixMedDefence,
        this.answer(() => ({ submitted: true as const })),
      )
      .handle(getPixChargeStatus, status(openCharge))
      .handle(openPixRecurrence, this.answer(recurrence))
      .handle(cancelPixRecurrence, this.answer(cancelled))
      .handle(
        openPixCycle,
        this.answer((cycle: RailCommand & { subscription_id: string }) => {
          // Refused before anything is kept as the answer (thrown here, not as a promise kept for a retry).
          if (this.cycleOpenRefusals.has(cycle.subscription_id))
            throw new CommandError('INVALID_FIELDS', 'Ciclo recusado.');
          const opened = { txid: `cobr${cycle.payment_id.replace(/[^A-Za-z0-9]/g, '')}` };
          if (this.cycleOpensAnsweredLate.has(cycle.subscription_id))
            return letTimePass(RAIL_TIMEOUT_MS + 500).then(() => opened);
          return this.whileOpeningCycle
            ? this.whileOpeningCycle(cycle.subscription_id).then(() => opened)
            : opened;
        }),
      )
      .handle(simulatePixRecurrence, this.answer(accepted))
      .handle(
        advancePixRecurrenceClock,
        this.answer((advance: { to: string }) => ({ today: advance.to })),
      )
      .consume();
    await this.broker
      .handlers('solana-watcher')
      .handle(openCryptoRequest, this.answer(slow(openedRequest)))
      .handle(changeCryptoRequestAmount, this.answer(slow(revisedRequest)))
      .handle(simulateCryptoOutcome, this.answer(accepted))
      .handle(getCryptoRequestStatus, status(openRequest))
      .consume();
  }

  callsOf(name: string): RailCall[] {
    return this.calls.filter((call) => call.name === name);
  }

  private answer<R, P extends object = RailCommand>(make: (payload: P) => R | Promise<R>) {
    return async (payload: P, context: MessageContext): Promise<R> => {
      const { id, name } = context.envelope;
      this.calls.push({ name, messageId: id, payload: payload as Record<string, unknown>, at: Date.now() });
      // The reply arrives after the payment service gave up waiting for it.
      if (this.silent) await letTimePass(RAIL_TIMEOUT_MS + 500);
      if (this.refusal) throw new CommandError(this.refusal, 'Recusado pelo provedor.');
      if (!this.answered.has(id)) this.answered.set(id, make(payload));
      return this.answered.get(id) as R;
    };
  }
}

/**
 * Stands in for the ledger's reservations on the broker: reserves whatever it is asked (once per id, as the ledger
 * does) unless told to refuse (INSUFFICIENT_BALANCE) or to answer that the payment is not posted yet for a while;
 * records every reservation and release.
 */
export class FakeLedger {
  /** Refuse every reservation with INSUFFICIENT_BALANCE. */
  insufficient = false;
  /** Answer `payment_not_posted` until this time (ms since the epoch). */
  notPostedUntil = 0;
  /** How long the ledger takes to answer a reservation (a busy ledger), within the RPC timeout. */
  delayMs = 0;
  /** Reservations asked and not answered yet. */
  inFlight = 0;
  readonly reservations = new Map<string, CreateReservation & { outcome: ReservationOutcome }>();
  readonly releases: string[] = [];
  readonly asked: CreateReservation[] = [];

  constructor(readonly broker: Broker) {}

  async start(): Promise<void> {
    await this.broker
      .handlers('ledger')
      .handle(createReservation, async (request) => {
        this.asked.push(request);
        if (this.delayMs > 0) {
          this.inFlight += 1;
          await letTimePass(this.delayMs).finally(() => (this.inFlight -= 1));
        }
        const known = this.reservations.get(request.reservation_id);
        if (known) return { reservation_id: request.reservation_id, outcome: known.outcome };
        if (Date.now() < this.notPostedUntil)
          return { reservation_id: request.reservation_id, outcome: 'payment_not_posted' as const };
        if (this.insufficient) throw new CommandError('INSUFFICIENT_BALANCE', 'Saldo insuficiente.');
        this.reservations.set(request.reservation_id, { ...request, outcome: 'reserved' });
        return { reservation_id: request.reservation_id, outcome: 'reserved' as const };
      })
      .handle(releaseReservation, async ({ reservation_id }) => {
        this.releases.push(reservation_id);
        const known = this.reservations.get(reservation_id);
        if (!known || known.outcome === 'released') return { released: false };
        known.outcome = 'released';
        return { released: true };
      })
      .consume();
  }
}

/** The payment service on a test bed, with the rails faked on the broker, and what its tests do to it. */
export interface Harness extends ServiceTestBed<PaymentService> {
  rails: FakeRails;
  ledger: FakeLedger;
  /** A new business with a fee rule for each method (see `newBusiness`). */
  newBusiness(): Promise<string>;
  /** Creates a payment (see `aCreatePayment`) and answers its view. */
  createPayment(businessId: string, overrides?: Partial<CreatePayment>): Promise<PaymentView>;
  readPayment(businessId: string, paymentId: string): Promise<PaymentView>;
  waitForPaymentStatus(businessId: string, paymentId: string, status: string): Promise<PaymentView>;
  /** A PIX payment of `amountCentavos`, paid in full by its rail's event; answers its id. */
  paidPixPayment(businessId: string, amountCentavos: number): Promise<string>;
  /** Names of the `payment.*` events the service wrote to its outbox for one payment, in order. */
  emittedPaymentEvents(paymentId: string): Promise<string[]>;
  /** The money kept for one payment (received_funds), oldest first: kind, reference and amount in either unit. */
  receivedFunds(paymentId: string): Promise<any[]>;
  /** Publishes an event under a fresh message id, and answers that id (to wait for its handling). */
  publishEvent<P>(definition: MessageDefinition<P>, payload: P): Promise<string>;
  /**
   * Waits until the service has handled every one of these messages: each handled message leaves its inbox row, which
   * commits with everything it changed and emitted.
   */
  waitForHandled(messageIds: string[]): Promise<true>;
  /**
   * Publishes `definition`'s message with `poison` over its payload (a value its contract refuses), and waits until
   * the service parks it on its `commands` or `events` parking queue. Answers the message's id and what was parked.
   */
  publishPoisoned<P>(
    queue: 'commands' | 'events',
    definition: MessageDefinition<P>,
    payload: P,
    poison: Record<string, unknown>,
  ): Promise<{ messageId: string; parked: ParkedMessage[] }>;
}

/** `config` overrides the service's variables (the rail timeout is 1 s unless given). */
async function startHarness(label: string, config: Record<string, string> = {}): Promise<Harness> {
  const bed = await serviceTestBed(label, (env) =>
    startPaymentService(
      loadPaymentConfig({ ...env.config, RAIL_RPC_TIMEOUT_MS: String(RAIL_TIMEOUT_MS), ...config }),
    ),
  );
  const rails = new FakeRails(await bed.connect(`${label}-rails`));
  await rails.start();
  const ledger = new FakeLedger(await bed.connect(`${label}-ledger`));
  await ledger.start();
  const query = (sql: string, parameters: unknown[]) => bed.service.dataSource.query(sql, parameters);
  // The bed itself, not a copy: a test that restarts the service sets `service` where `close` finds it.
  return Object.assign(bed, {
    rails,
    ledger,
    newBusiness: () => newBusiness(bed),
    createPayment: (businessId: string, overrides: Partial<CreatePayment> = {}) =>
      create(bed, businessId, overrides),
    readPayment: (businessId: string, paymentId: string) => readPayment(bed, businessId, paymentId),
    waitForPaymentStatus: (businessId: string, paymentId: string, status: string) =>
      waitForPaymentStatus(bed, businessId, paymentId, status),
    async paidPixPayment(businessId: string, amountCentavos: number) {
      const view = await create(bed, businessId, { amount_centavos: amountCentavos });
      await bed.client.publish(pixChargePaid, aPixChargePaid(view.payment));
      await waitForPaymentStatus(bed, businessId, view.payment.payment_id, 'paid');
      return view.payment.payment_id;
    },
    async emittedPaymentEvents(paymentId: string) {
      const rows: Array<{ name: string }> = await query(
        `SELECT name FROM outbox WHERE envelope->'payload'->'payment'->>'payment_id' = $1 ORDER BY seq`,
        [paymentId],
      );
      return rows.map((row) => row.name);
    },
    receivedFunds: (paymentId: string) =>
      query(
        `SELECT kind, rail_reference, amount_centavos::int AS centavos, amount_base_units AS units
           FROM received_funds WHERE payment_id = $1 ORDER BY id`,
        [paymentId],
      ),
    async publishEvent<P>(definition: MessageDefinition<P>, payload: P) {
      const messageId = newPublicId('msg');
      await bed.client.publish(definition, payload, { messageId });
      return messageId;
    },
    waitForHandled: (messageIds: string[]) =>
      waitFor(
        async () => {
          const rows: unknown[] = await query('SELECT 1 FROM inbox WHERE message_id = ANY($1)', [messageIds]);
          return rows.length === messageIds.length;
        },
        { what: `${messageIds.length} message(s) handled` },
      ) as Promise<true>,
    async publishPoisoned<P>(
      queue: 'commands' | 'events',
      definition: MessageDefinition<P>,
      payload: P,
      poison: Record<string, unknown>,
    ) {
      const envelope = poisonedEnvelope(definition, payload, poison);
      const parked = await publishAndAwaitParking(bed.client, bed.env.config, 'payment', queue, envelope);
      return { messageId: envelope.id, parked };
    },
  });
}

/** The payment service of `startHarness`, started before the enclosing describe's tests and closed after them. */
export function paymentServiceForTheseTests(label: string, config: Record<string, string> = {}): Harness {
  return startedForTheseTests(() => startHarness(label, config));
}

/** A new business with a fee rule for each method: 1.5 % + R$ 0,10. */
async function newBusiness(bed: ServiceTestBed<PaymentService>): Promise<string> {
  const businessId = newPublicId('biz');
  for (const method of ['pix', 'crypto'] as const) {
    const reply = await bed.request(setFeeRule, {
      business_id: businessId,
      method,
      percent_bps: 150,
      fixed_centavos: 10,
    });
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
  }
  return businessId;
}

/** A create of a R$ 100,00 PIX payment for the business (a fee rule for it must exist, see `newBusiness`). */
export function aCreatePayment(businessId: string, overrides: Partial<CreatePayment> = {}): CreatePayment {
  return {
    business_id: businessId,
    business_name: 'Loja Teste',
    method: 'pix',
    amount_centavos: 10000,
    metadata: null,
    token: null,
    ...overrides,
  };
}

async function create(
  bed: ServiceTestBed<PaymentService>,
  businessId: string,
  overrides: Partial<CreatePayment> = {},
): Promise<PaymentView> {
  const reply = await bed.request(createPayment, aCreatePayment(businessId, overrides));
  if (!reply.ok) throw new Error(JSON.stringify(reply.error));
  return reply.result;
}

export async function readPayment(
  bed: ServiceTestBed<PaymentService>,
  businessId: string,
  paymentId: string,
): Promise<PaymentView> {
  const reply = await bed.request(getPayment, { business_id: businessId, payment_id: paymentId });
  if (!reply.ok) throw new Error(`get failed: ${JSON.stringify(reply.error)}`);
  return reply.result;
}

/** Waits until the payment service shows the payment in `status`, and answers it as then read. */
export function waitForPaymentStatus(
  bed: ServiceTestBed<PaymentService>,
  businessId: string,
  paymentId: string,
  status: string,
): Promise<PaymentView> {
  return waitFor(
    async () => {
      const view = await readPayment(bed, businessId, paymentId);
      return view.payment.status === status ? view : undefined;
    },
    { what: `payment ${status}` },
  );
}
