import type { DataSource } from 'typeorm';
import { disputeSimulations, type SimulatePayment } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import type { Rails } from '../clients';
import { invalidStatusMessage, isOpen } from '../domain/payment-status';
import { findPayment } from '../persistence';

const ACCEPTED = { accepted: true } as const;

export interface SimulatePaymentDeps {
  dataSource: DataSource;
  uow: UnitOfWork;
  rails: Rails;
  appEnv: 'sandbox' | 'production';
}

/**
 * Sandbox only: asks the rail to make the outcome happen for real (the PSP simulator pays, the test wallet sends),
 * so the payment changes through the same events as in production. The rail deduplicates by derived message id, and
 * the answer is kept in the inbox: a retried command (a gateway that died mid-request) gets the first answer even once
 * the outcome has made the payment final. The attempt is recorded before the rail is called (outside any
 * transaction): when the rail's answer is lost (a broker restart) but its outcome made the payment final, the retry of
 * the same command is accepted rather than refused for the status its own first attempt caused. The dispute outcomes
 * (`disputed`, `dispute_won`, `dispute_lost`) act on a paid PIX payment: the PSP simulator raises or ends a MED.
 */
export async function simulateRailOutcome(
  deps: SimulatePaymentDeps,
  command: SimulatePayment,
  context: MessageContext,
): Promise<{ accepted: true }> {
  if (deps.appEnv !== 'sandbox') throw new CommandError('NOT_FOUND', 'Recurso não encontrado.');
  const stored = await deps.uow.storedResult<{ accepted: true }>(context);
  if (stored) return stored.value;
  const payment = await findPayment(deps.dataSource.manager, command.payment_id, command.business_id);
  if (!payment) throw new CommandError('NOT_FOUND', 'Pagamento não encontrado.');
  // A dispute (MED) is raised on a paid PIX payment: the rail's simulator decides whether one is open to end.
  const disputing = disputeSimulations.has(command.outcome);
  // A day to pay on is a due-date charge's (the PIX adapter checks it against the charge's window).
  if (command.paid_on && (payment.method !== 'pix' || command.outcome !== 'paid'))
    throw new CommandError(
      'INVALID_FIELDS',
      'Campos inválidos: paid_on (só para pagar uma cobrança PIX com vencimento, outcome paid).',
    );
  if (disputing && payment.method !== 'pix')
    throw new CommandError('INVALID_FIELDS', 'Campos inválidos: outcome (disputas existem só em PIX).');
  if (disputing ? payment.status !== 'paid' : !isOpen(payment.status)) {
    if (await deps.uow.wasAttempted(context)) return deps.uow.once(context, async () => ACCEPTED);
    throw new CommandError('INVALID_STATUS', invalidStatusMessage(payment.status));
  }
  await deps.uow.recordAttempt(context);
  const answer = await deps.rails.of(payment.method).simulate(
    payment.id,
    {
      outcome: command.outcome,
      amount_centavos: command.amount_centavos,
      // Only when given: a rail's command without it is the one it always was.
      ...(command.paid_on ? { paid_on: command.paid_on } : {}),
    },
    context,
  );
  return deps.uow.once(context, async () => answer);
}
