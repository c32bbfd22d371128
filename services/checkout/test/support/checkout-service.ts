import {
  createCheckout,
  createPayment,
  createProduct,
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
  /** Sends checkout.session.start.v1 (under `messageId` when given) and answers the reply. */
  startSession(command: StartCheckoutSession, messageId?: string): Promise<Reply<StartedCheckoutSession>>;
}

/** Like `checkoutServiceForTheseTests`, with a stand-in for the payment service answering its creates. */
export function checkoutWithPaymentsForTheseTests(label: string): CheckoutWithPayments {
  return startedForTheseTests(async () => {
    const bed = await checkoutTestBed(label);
    const payments = await FakePaymentService.start(await bed.connect('fake-payment-service'));
    return Object.assign(bed, {
      payments,
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

/** A stand-in for the payment service: answers payment.create.v1 with contract-valid views, like its inbox would. */
export class FakePaymentService {
  /** Every payment.create.v1 delivery, by message id. */
  readonly requests = new Map<string, CreatePayment[]>();
  private readonly answered = new Map<string, PaymentView>();
  private readonly refusals = new Map<string, CommandError>();
  private readonly slowBusinesses = new Set<string>();

  private constructor(readonly broker: Broker) {}

  /** Answers on `broker`, which its owner cleans up (a test bed's `connect`). */
  static async start(broker: Broker): Promise<FakePaymentService> {
    const fake = new FakePaymentService(broker);
    await fake.broker
      .handlers('payment')
      .handle(createPayment, (command, context) => fake.create(command, context))
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
