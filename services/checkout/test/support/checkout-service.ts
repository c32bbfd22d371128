import {
  createCheckout,
  createCustomer,
  createPayment,
  createProduct,
  createSubscription,
  getPayment,
  type CreateCustomer,
  type CreateSubscription,
  type Customer,
  type SubscriptionRecord,
  newPublicId,
  startCheckoutSession,
  type Checkout,
  type CreateCheckout,
  type CreatePayment,
  type CreateProduct,
  type ErrorCode,
  type PaymentView,
  type Product,
  type Reply,
  type StartCheckoutSession,
  type StartedCheckoutSession,
} from '@gateway/contracts';
import { CommandError, type Broker, type MessageContext } from '@gateway/messaging';
import type { ServiceRuntime } from '@gateway/service-runtime';
import {
  aCryptoInstructions,
  aPaymentRecord,
  aPixInstructions,
  letTimePass,
  serviceTestBed,
  startedForTheseTests,
  type ServiceTestBed,
} from '@gateway/testkit';
import { startCheckoutService } from '../../src/main';

/** Short, so a test can outlast it without making the file slow. */
export const PAYMENT_RPC_TIMEOUT_MS = 1000;

export interface CheckoutTestBed extends ServiceTestBed<ServiceRuntime> {
  /** A new checkout (`checkoutCommand` with `overrides`) of a new product (`productCommand`). */
  newCheckout(overrides?: Partial<CreateCheckout>): Promise<Checkout>;
}

/** The checkout service started in-process on its own database and broker prefix, with a client broker. */
export async function checkoutTestBed(label: string): Promise<CheckoutTestBed> {
  const bed = await serviceTestBed(label, (env) =>
    startCheckoutService({ ...env.config, PAYMENT_RPC_TIMEOUT_MS }),
  );
  return Object.assign(bed, {
    newCheckout: async (overrides: Partial<CreateCheckout> = {}) =>
      createTestCheckout(bed, await createTestProduct(bed), overrides),
  });
}

/** The checkout service of `checkoutTestBed`, started before the enclosing describe's tests and closed after them. */
export function checkoutServiceForTheseTests(label: string): CheckoutTestBed {
  return startedForTheseTests(() => checkoutTestBed(label));
}

export interface CheckoutWithPayments extends CheckoutTestBed {
  /** The stand-in for the payment service. */
  payments: FakePaymentService;
  /** The stand-in for the customer service. */
  customers: FakeCustomerService;
  /** Sends checkout.session.start.v1 (under `messageId` when given) and answers the reply. */
  startSession(command: StartCheckoutSession, messageId?: string): Promise<Reply<StartedCheckoutSession>>;
}

/** Like `checkoutServiceForTheseTests`, with a stand-in for the payment service answering its creates. */
export function checkoutWithPaymentsForTheseTests(label: string): CheckoutWithPayments {
  return startedForTheseTests(async () => {
    const bed = await checkoutTestBed(label);
    const payments = await FakePaymentService.start(await bed.connect('fake-payment-service'));
    const customers = await FakeCustomerService.start(await bed.connect('fake-customer-service'));
    return Object.assign(bed, {
      payments,
      customers,
      startSession: (command: StartCheckoutSession, messageId?: string) =>
        bed.request(startCheckoutSession, command, { messageId }),
    });
  });
}

export function productCommand(overrides: Partial<CreateProduct> = {}): CreateProduct {
  return {
    business_id: newPublicId('biz'),
    business_name: 'Estúdio Som',
    name: 'Curso de Violão',
    description: 'Doze aulas gravadas',
    price_centavos: 4990,
    ...overrides,
  };
}

export function checkoutCommand(product: Product, overrides: Partial<CreateCheckout> = {}): CreateCheckout {
  return {
    business_id: product.business_id,
    product_id: product.product_id,
    return_url: 'https://loja.example.com/obrigado',
    cancel_url: 'https://loja.example.com/carrinho',
    title: null,
    slug: null,
    metadata: null,
    ...overrides,
  };
}

/** A buyer's start of a subscription on a recurring product's page: a valid CPF, typed with punctuation. */
export function subscriptionStartCommand(
  checkout: Checkout,
  overrides: Partial<StartCheckoutSession> = {},
): StartCheckoutSession {
  return sessionStartCommand(checkout, {
    buyer: { name: 'Maria da Silva', document: '529.982.247-25' },
    ...overrides,
  });
}

/** A buyer's start of a PIX session on the checkout's page. */
export function sessionStartCommand(
  checkout: Checkout,
  overrides: Partial<StartCheckoutSession> = {},
): StartCheckoutSession {
  return { slug: checkout.slug, business_name: 'Estúdio Som', method: 'pix', token: null, ...overrides };
}

export async function createTestProduct(
  bed: ServiceTestBed<ServiceRuntime>,
  overrides: Partial<CreateProduct> = {},
): Promise<Product> {
  const reply = await bed.request(createProduct, productCommand(overrides));
  if (!reply.ok) throw new Error(`product not created: ${reply.error.code}`);
  return reply.result;
}

export async function createTestCheckout(
  bed: ServiceTestBed<ServiceRuntime>,
  product: Product,
  overrides: Partial<CreateCheckout> = {},
): Promise<Checkout> {
  const reply = await bed.request(createCheckout, checkoutCommand(product, overrides));
  if (!reply.ok) throw new Error(`checkout not created: ${reply.error.code}`);
  return reply.result;
}

/**
 * A stand-in for the payment service: answers payment.create.v1 and subscription.create.v1 (journey 3: its first
 * cycle's payment, readable by payment.get.v1) with contract-valid records, like its inbox would.
 */
export class FakePaymentService {
  /** Every payment.create.v1 delivery, by message id. */
  readonly requests = new Map<string, CreatePayment[]>();
  /** Every subscription.create.v1 delivery, by message id. */
  readonly subscriptionRequests = new Map<string, CreateSubscription[]>();
  private readonly answered = new Map<string, PaymentView>();
  private readonly subscriptions = new Map<string, SubscriptionRecord>();
  private readonly payments = new Map<string, PaymentView>();
  private readonly refusals = new Map<string, CommandError>();
  private readonly slowBusinesses = new Set<string>();

  private constructor(readonly broker: Broker) {}

  /** Answers on `broker`, which its owner cleans up (a test bed's `connect`). */
  static async start(broker: Broker): Promise<FakePaymentService> {
    const fake = new FakePaymentService(broker);
    await fake.broker
      .handlers('payment')
      .handle(createPayment, (command, context) => fake.create(command, context))
      .handle(createSubscription, (command, context) => fake.subscribe(command, context))
      .handle(getPayment, (query) => {
        const view = fake.payments.get(query.payment_id);
        if (!view || view.payment.business_id !== query.business_id)
          throw new CommandError('NOT_FOUND', 'Pagamento não encontrado.');
        return Promise.resolve(view);
      })
      .consume();
    return fake;
  }

  refuse(businessId: string, code: ErrorCode, message: string): void {
    this.refusals.set(businessId, new CommandError(code, message));
  }

  /** Answers this business's requests only after the checkout service stopped waiting. */
  answerLate(businessId: string): void {
    this.slowBusinesses.add(businessId);
  }

  requestsFor(businessId: string): CreatePayment[] {
    return [...this.requests.values()].flat().filter((request) => request.business_id === businessId);
  }

  distinctRequestIdsFor(businessId: string): string[] {
    return [...this.requests.entries()]
      .filter(([, requests]) => requests.some((request) => request.business_id === businessId))
      .map(([id]) => id);
  }

  subscriptionRequestsFor(businessId: string): CreateSubscription[] {
    return [...this.subscriptionRequests.values()]
      .flat()
      .filter((request) => request.business_id === businessId);
  }

  private async subscribe(command: CreateSubscription, context: MessageContext): Promise<SubscriptionRecord> {
    const id = context.envelope.id;
    this.subscriptionRequests.set(id, [...(this.subscriptionRequests.get(id) ?? []), command]);
    const refusal = this.refusals.get(command.business_id);
    if (refusal) throw refusal;
    const known = this.subscriptions.get(id);
    if (known) return known;
    const firstCycle = paymentView({
      business_id: command.business_id,
      business_name: command.business_name,
      method: 'pix',
      amount_centavos: command.amount_centavos!,
      metadata: null,
      token: null,
    });
    this.payments.set(firstCycle.payment.payment_id, firstCycle);
    const now = new Date().toISOString();
    const record: SubscriptionRecord = {
      subscription_id: newPublicId('sub'),
      business_id: command.business_id,
      customer_id: command.customer_id,
      status: 'pending_authorization',
      amount_centavos: command.amount_centavos,
      minimum_amount_centavos: null,
      interval: command.interval,
      start_date: command.start_date,
      end_date: command.end_date,
      description: command.description,
      retry_policy: command.retry_policy,
      journey: command.journey,
      metadata: command.metadata,
      authorization: firstCycle.pix!,
      first_payment_id: firstCycle.payment.payment_id,
      next_cycle: 2,
      next_due_date: null,
      current_date: command.start_date,
      cancelled_by: null,
      cancellation_reason: null,
      ended_at: null,
      created_at: now,
      updated_at: now,
    };
    this.subscriptions.set(id, record);
    return record;
  }

  private async create(command: CreatePayment, context: MessageContext): Promise<PaymentView> {
    const id = context.envelope.id;
    this.requests.set(id, [...(this.requests.get(id) ?? []), command]);
    if (this.slowBusinesses.has(command.business_id)) await letTimePass(PAYMENT_RPC_TIMEOUT_MS + 500);
    const refusal = this.refusals.get(command.business_id);
    if (refusal) throw refusal;
    const view = this.answered.get(id) ?? paymentView(command);
    this.answered.set(id, view);
    return view;
  }
}

/** What the payment service answers a create with, for the command's business, method and amount. */
function paymentView(command: CreatePayment): PaymentView {
  const payment = aPaymentRecord({
    business_id: command.business_id,
    method: command.method,
    status: command.method === 'pix' ? 'processing' : 'pending',
    amount_centavos: command.amount_centavos,
    fee_centavos: 150,
    external_id: null,
    metadata: command.metadata,
  });
  const expiresAt = new Date(Date.now() + 30 * 60_000).toISOString();
  return command.method === 'pix'
    ? { payment, pix: aPixInstructions({ expires_at: expiresAt }) }
    : { payment, crypto: aCryptoInstructions({ currency: command.token ?? 'usdc', expires_at: expiresAt }) };
}

/**
 * A stand-in for the customer service: answers customer.create.v1 once per message id, like its inbox would; a
 * document it is told to refuse is INVALID_FIELDS, as one with wrong check digits is there.
 */
export class FakeCustomerService {
  /** Every customer.create.v1 delivery, by message id. */
  readonly requests = new Map<string, CreateCustomer[]>();
  private readonly answered = new Map<string, Customer>();
  private readonly refusedDocuments = new Set<string>();

  private constructor(readonly broker: Broker) {}

  static async start(broker: Broker): Promise<FakeCustomerService> {
    const fake = new FakeCustomerService(broker);
    await fake.broker
      .handlers('customer')
      .handle(createCustomer, (command, context) => fake.create(command, context))
      .consume();
    return fake;
  }

  refuseDocument(document: string): void {
    this.refusedDocuments.add(document);
  }

  requestsFor(businessId: string): CreateCustomer[] {
    return [...this.requests.values()].flat().filter((request) => request.business_id === businessId);
  }

  private create(command: CreateCustomer, context: MessageContext): Promise<Customer> {
    const id = context.envelope.id;
    this.requests.set(id, [...(this.requests.get(id) ?? []), command]);
    if (command.document_number && this.refusedDocuments.has(command.document_number))
      return Promise.reject(new CommandError('INVALID_FIELDS', 'Campos inválidos: document_number.'));
    const customer = this.answered.get(id) ?? {
      ...command,
      customer_id: newPublicId('cust'),
      document_number: command.document_number?.replace(/\D/g, '') ?? null,
      created_at: new Date().toISOString(),
    };
    this.answered.set(id, customer);
    return Promise.resolve(customer);
  }
}
