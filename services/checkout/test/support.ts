import {
  createCheckout,
  createProduct,
  newPublicId,
  type Checkout,
  type CreateCheckout,
  type CreatePayment,
  type CreateProduct,
  type ErrorCode,
  type PaymentView,
  type Product,
} from '@gateway/contracts';
import { CommandError, type Broker, type MessageContext } from '@gateway/messaging';
import type { ServiceRuntime } from '@gateway/service-runtime';
import {
  aCryptoInstructions,
  aPaymentRecord,
  aPixInstructions,
  letTimePass,
  serviceTestBed,
  type ServiceTestBed,
} from '@gateway/testkit';
import { startCheckoutService } from '../src/main';

export const RPC_TIMEOUT_MS = 5000;
/** Short, so a test can outlast it without making the file slow. */
export const PAYMENT_RPC_TIMEOUT_MS = 1000;

/** The checkout service started in-process on its own database and broker prefix, with a client broker. */
export function checkoutTestBed(label: string): Promise<ServiceTestBed<ServiceRuntime>> {
  return serviceTestBed(label, (env) => startCheckoutService({ ...env.config, PAYMENT_RPC_TIMEOUT_MS }));
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

export async function createTestProduct(
  client: Broker,
  overrides: Partial<CreateProduct> = {},
): Promise<Product> {
  const reply = await client.request(createProduct, productCommand(overrides), { timeoutMs: RPC_TIMEOUT_MS });
  if (!reply.ok) throw new Error(`product not created: ${reply.error.code}`);
  return reply.result;
}

export async function createTestCheckout(
  client: Broker,
  product: Product,
  overrides: Partial<CreateCheckout> = {},
): Promise<Checkout> {
  const reply = await client.request(createCheckout, checkoutCommand(product, overrides), {
    timeoutMs: RPC_TIMEOUT_MS,
  });
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
    await fake.broker.consumeCommands('payment', {
      'payment.create.v1': (command: CreatePayment, context: MessageContext) => fake.create(command, context),
    });
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
