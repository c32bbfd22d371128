import type { DataSource } from 'typeorm';
import type { CreatePayment, PaymentView } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import type { Rails } from '../clients';
import { computeFee } from '../domain/fee';
import { toView } from '../domain/payment-record';
import { insertPayment, reservePaymentId } from '../persistence';
import { businessFeeRule, noFeeRule, type DefaultFees } from './shared/fee-rules';
import { emitPaymentEvent } from './shared/payment-events';

export interface CreatePaymentDeps {
  dataSource: DataSource;
  uow: UnitOfWork;
  rails: Rails;
  defaultFees: DefaultFees;
}

/**
 * Opens the rail first, outside any transaction, and inserts the payment only once the rail answered, in a short
 * transaction that also writes payment.created.v1: a rail failure leaves nothing visible, and a slow rail holds no
 * connection or lock. The payment id is reserved per command message id, and the rail command's id derives from it,
 * so a redelivered or retried create (even two deliveries at once) reuses both the id and the charge. A create never
 * writes over a payment: one that already exists answers IDEMPOTENCY_CONFLICT.
 */
export async function createPaymentOnRail(
  deps: CreatePaymentDeps,
  command: CreatePayment,
  context: MessageContext,
): Promise<PaymentView> {
  // The reservation reads the business's fee rule in the same round trip; a business without one for the method gets
  // the default (stored as its own) or a refusal, before the rail is asked anything.
  const { paymentId, created, feeRule } = await reservePaymentId(
    deps.dataSource.manager,
    context.envelope.id,
    {
      businessId: command.business_id,
      method: command.method,
    },
  );
  const rule =
    feeRule ??
    (await businessFeeRule(deps.dataSource.manager, deps.defaultFees, command.business_id, command.method));
  if (!rule) throw noFeeRule(command.method);
  const rail = deps.rails.of(command.method);
  rail.checkCreate(command);
  // Created already: the inbox answers a redelivery (or refuses a replay) without asking the rail again.
  const opened = created
    ? null
    : await rail.open(
        {
          id: paymentId,
          businessId: command.business_id,
          businessName: command.business_name,
          amountCentavos: command.amount_centavos,
          token: command.token,
          description: command.description ?? null,
          debtor: command.debtor ?? null,
          due: command.due ?? null,
        },
        context,
      );
  return deps.uow.once(context, async (tx) => {
    // The inbox forgot this message but its payment exists: a replay, refused.
    if (!opened) throw alreadyCreated(paymentId);
    const { feeCentavos } = computeFee(command.amount_centavos, rule);
    const now = new Date();
    // Never an overwrite: a payment that exists by now (a concurrent delivery, or a replay the inbox forgot) inserts
    // nothing, and the create is refused as a replay.
    const payment = await insertPayment(tx.manager, {
      id: paymentId,
      businessId: command.business_id,
      businessName: command.business_name,
      method: command.method,
      status: rail.openStatus,
      amountCentavos: command.amount_centavos,
      feeCentavos,
      token: command.token,
      metadata: command.metadata,
      description: command.description ?? null,
      customerId: command.customer_id ?? null,
      transactionId: null,
      externalId: opened.externalId,
      failureCode: null,
      failureReason: null,
      instructions: opened.instructions,
      custody: opened.custody ?? 'platform',
      payerName: null,
      payerDocumentMasked: null,
      payerAddress: null,
      paidAt: null,
      refundReservedCentavos: 0,
      disputedCentavos: 0,
      refundedCentavos: 0,
      createdAt: now,
      updatedAt: now,
      version: 1,
      // A due-date payment keeps the terms it was created under: its fee is computed again on what is paid.
      ...(command.due ? { feePercentBps: rule.percentBps, feeFixedCentavos: rule.fixedCentavos } : {}),
    });
    if (!payment) throw alreadyCreated(paymentId);
    await emitPaymentEvent(tx, 'created', payment);
    context.logger.info({ payment_id: payment.id, method: payment.method }, 'payment created');
    return toView(payment);
  });
}

function alreadyCreated(paymentId: string): CommandError {
  return new CommandError(
    'IDEMPOTENCY_CONFLICT',
    `Esta requisição de criação já foi processada e criou o pagamento ${paymentId}.`,
  );
}
