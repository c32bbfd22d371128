import { createHash } from 'node:crypto';
import {
  TEXT_LIMITS,
  createCustomer,
  createPayment,
  createSubscription,
  dateOfDay,
  getPayment,
  newPublicId,
  saoPauloDay,
  type PaymentView,
  type StartCheckoutSession,
  type StartedCheckoutSession,
  type SubscriptionInterval,
} from '@gateway/contracts';
import { CommandError, type Broker, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import type { DataSource } from 'typeorm';
import { buyerProblems, subscriptionDescription } from '../domain/checkout-buyer';
import { findActiveCheckout, insertSession, type ActiveCheckout } from '../persistence';

export interface StartSessionDependencies {
  dataSource: DataSource;
  broker: Broker;
  uow: UnitOfWork;
  paymentTimeoutMs: number;
}

/** What a session pays: a payment, or a subscription's first cycle. */
interface SessionPayment {
  payment: PaymentView;
  subscriptionId: string | null;
}

/**
 * Starts a buyer's payment on an active checkout: asks the payment service for a payment of the product's price (for
 * a recurring product, a subscription whose first cycle is that payment), then records it as an `initiated` session.
 * Every request's id derives from this command's id, so a redelivered start reaches the other services' inboxes as
 * the same requests and never creates a second customer, subscription or payment. The session row commits before the
 * reply carries the QR code, so the payment's outcome events (which need the buyer to pay that code first) always
 * find it.
 */
export async function startCheckoutSession(
  deps: StartSessionDependencies,
  command: StartCheckoutSession,
  context: MessageContext,
): Promise<StartedCheckoutSession> {
  const found = await findActiveCheckout(deps.dataSource.manager, command.slug);
  if (!found) throw new CommandError('NOT_FOUND', 'Checkout não encontrado.');
  const { interval } = found.product;
  const { payment, subscriptionId } = interval
    ? await requestSubscription(deps, command, found, interval, context)
    : { payment: await requestPayment(deps, command, found, context), subscriptionId: null };
  return deps.uow.once(context, async (tx) => {
    const sessionId = newPublicId('sess');
    await insertSession(tx.manager, {
      id: sessionId,
      checkoutId: found.checkout.id,
      paymentId: payment.payment.payment_id,
      subscriptionId,
      status: 'initiated',
    });
    return {
      session_id: sessionId,
      status: 'initiated',
      payment,
      ...(subscriptionId ? { subscription_id: subscriptionId } : {}),
    };
  });
}

function requestPayment(
  deps: StartSessionDependencies,
  command: StartCheckoutSession,
  { checkout, product }: ActiveCheckout,
  context: MessageContext,
): Promise<PaymentView> {
  return deps.broker.call(
    createPayment,
    {
      business_id: checkout.businessId,
      business_name: merchantName(command),
      method: command.method,
      amount_centavos: product.priceCentavos,
      metadata: saleMetadata({ checkout, product }),
      token: command.token,
    },
    {
      timeoutMs: deps.paymentTimeoutMs,
      messageId: requestId('checkout-session', context.envelope.id),
      within: context,
    },
  );
}

/**
 * A recurring product: the buyer becomes a new customer of the business (never one found by the CPF typed: anyone may
 * type a CPF, and the merchant's customer record, with what it holds, is not the buyer's to claim), who is the debtor
 * of a subscription of the product's price per interval, starting today with journey `qr_with_first_payment`: reading
 * its one QR code pays the first cycle and authorizes the rest (docs/adr/0048, section 5). The session follows that
 * first cycle's payment as it follows a one-off payment.
 */
async function requestSubscription(
  deps: StartSessionDependencies,
  command: StartCheckoutSession,
  { checkout, product }: ActiveCheckout,
  interval: SubscriptionInterval,
  context: MessageContext,
): Promise<SessionPayment> {
  if (command.method !== 'pix')
    throw new CommandError('UNSUPPORTED_PAYMENT_METHOD', 'Assinaturas são pagas somente por PIX.');
  const { buyer } = command;
  if (!buyer) throw new CommandError('MISSING_FIELDS', 'Campos obrigatórios ausentes: name, document.');
  const problems = buyerProblems(buyer);
  if (problems.length > 0)
    throw new CommandError('INVALID_FIELDS', `Campos inválidos: ${problems.join(', ')}.`);
  const call = (kind: string) => ({
    timeoutMs: deps.paymentTimeoutMs,
    messageId: requestId(kind, context.envelope.id),
    within: context,
  });
  const metadata = saleMetadata({ checkout, product });
  // The customer service validates and normalises the pair (CPF check digits, a printable name) as for any customer.
  const customer = await deps.broker.call(
    createCustomer,
    {
      business_id: checkout.businessId,
      name: buyer.name,
      email: null,
      phone_number: null,
      document_number: buyer.document,
      ip: null,
      metadata,
    },
    call('checkout-customer'),
  );
  const subscription = await deps.broker.call(
    createSubscription,
    {
      business_id: checkout.businessId,
      business_name: merchantName(command),
      customer_id: customer.customer_id,
      debtor: { name: customer.name!, document: customer.document_number! },
      amount_centavos: product.priceCentavos,
      minimum_amount_centavos: null,
      interval,
      start_date: dateOfDay(saoPauloDay(new Date())),
      end_date: null,
      description: subscriptionDescription(product.name),
      retry_policy: 'none',
      journey: 'qr_with_first_payment',
      payer_account: null,
      metadata,
    },
    call('checkout-subscription'),
  );
  const firstPaymentId = subscription.first_payment_id;
  if (!firstPaymentId)
    throw new Error(`subscription ${subscription.subscription_id} came without its first cycle`);
  const payment = await deps.broker.call(
    getPayment,
    { business_id: checkout.businessId, payment_id: firstPaymentId },
    call('checkout-first-cycle'),
  );
  return { payment, subscriptionId: subscription.subscription_id };
}

/** payment.create.v1 and subscription.create.v1 bound the merchant name the rails show to the buyer. */
const merchantName = (command: StartCheckoutSession) => command.business_name.slice(0, TEXT_LIMITS.name);

const saleMetadata = ({ checkout, product }: ActiveCheckout) =>
  JSON.stringify({ checkout_id: checkout.id, product_id: product.id });

/** The same start command always sends the same requests (ids stay short whatever the incoming id's length). */
function requestId(kind: string, startCommandId: string): string {
  return `${kind}-${createHash('sha256').update(startCommandId).digest('base64url')}`;
}
