import { createHash } from 'node:crypto';
import {
  TEXT_LIMITS,
  createPayment,
  newPublicId,
  type PaymentView,
  type StartCheckoutSession,
  type StartedCheckoutSession,
} from '@gateway/contracts';
import { CommandError, type Broker, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import type { DataSource } from 'typeorm';
import { findActiveCheckout, insertSession, type ActiveCheckout } from '../persistence';

export interface StartSessionDependencies {
  dataSource: DataSource;
  broker: Broker;
  uow: UnitOfWork;
  paymentTimeoutMs: number;
}

/**
 * Starts a buyer's payment on an active checkout: asks the payment service for a payment of the product's price,
 * then records it as an `initiated` session. The payment request's id derives from this command's id, so a
 * redelivered start reaches the payment service's inbox as the same request and never creates a second payment.
 * The session row commits before the reply carries the QR code, so the payment's outcome events (which need the
 * buyer to pay that code first) always find it.
 */
export async function startCheckoutSession(
  deps: StartSessionDependencies,
  command: StartCheckoutSession,
  context: MessageContext,
): Promise<StartedCheckoutSession> {
  const found = await findActiveCheckout(deps.dataSource.manager, command.slug);
  if (!found) throw new CommandError('NOT_FOUND', 'Checkout não encontrado.');
  const payment = await requestPayment(deps, command, found, context);
  return deps.uow.once(context, async (tx) => {
    const sessionId = newPublicId('sess');
    await insertSession(tx.manager, {
      id: sessionId,
      checkoutId: found.checkout.id,
      paymentId: payment.payment.payment_id,
      status: 'initiated',
    });
    return { session_id: sessionId, status: 'initiated', payment };
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
      // payment.create.v1 bounds the merchant name the rails show to the buyer.
      business_name: command.business_name.slice(0, TEXT_LIMITS.name),
      method: command.method,
      amount_centavos: product.priceCentavos,
      metadata: JSON.stringify({ checkout_id: checkout.id, product_id: product.id }),
      token: command.token,
    },
    { timeoutMs: deps.paymentTimeoutMs, messageId: paymentRequestId(context.envelope.id), within: context },
  );
}

/** The same start command always asks for the same payment (ids stay short whatever the incoming id's length). */
function paymentRequestId(startCommandId: string): string {
  return `checkout-session-${createHash('sha256').update(startCommandId).digest('base64url')}`;
}
