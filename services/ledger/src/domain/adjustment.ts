import type {
  AdjustmentPlatformAccount,
  AdjustmentRecord,
  CreateAdjustment,
  ErrorCode,
} from '@gateway/contracts';
import type { Account } from './accounts';
import { platformPosting, posting, type PlatformPosting, type Posting } from './posting-rules';

/**
 * Operator adjustments (docs/money-model.md#adjustments), pure: what a request asks, whether the books accept it, and
 * the one journal it posts. A business adjustment moves the business's `available` against a platform account; a
 * platform adjustment moves money between two of the platform's own accounts. Either is a new journal: nothing
 * already posted ever changes.
 */

/** A request the rules accept, in the shape it is posted and stored. */
export interface AdjustmentRequest {
  kind: AdjustmentRecord['kind'];
  businessId: string | null;
  /** Business: signed (positive credits the business); platform: positive. */
  amountCentavos: number;
  debitAccount: Account;
  creditAccount: Account;
  allowNegativeAvailable: boolean;
  reason: string;
}

export type Refusal = { code: ErrorCode; message: string };

const refuse = (code: ErrorCode, message: string): Refusal => ({ code, message });

/** The key of an adjustment's journal: one per adjustment. */
export const adjustmentCauseKey = (adjustmentId: string): string => `adjustment:${adjustmentId}`;

/**
 * What the command asks, or why it cannot be posted. A business adjustment credits (amount > 0) or debits (< 0) the
 * business's `available` against `counter_account` (`platform_adjustments` unless told): the other side of the
 * journal is the platform's, which gives or takes back that much. A platform adjustment moves a positive amount from
 * `credit_account` to `debit_account`, two different platform accounts, and may not name a business's fields.
 */
export function adjustmentRequest(command: CreateAdjustment): AdjustmentRequest | Refusal {
  // The contract has already refused a blank reason; the statement shows it without the spaces around it.
  const reason = command.reason.trim();
  const amount = command.amount_centavos;
  if (command.business_id != null) {
    if (command.debit_account != null || command.credit_account != null)
      return refuse(
        'INVALID_FIELDS',
        'Campos inválidos: debit_account, credit_account (um ajuste de um negócio não os aceita).',
      );
    const counter = command.counter_account ?? 'platform_adjustments';
    const credit = amount > 0;
    return {
      kind: 'business',
      businessId: command.business_id,
      amountCentavos: amount,
      debitAccount: credit ? counter : 'available',
      creditAccount: credit ? 'available' : counter,
      allowNegativeAvailable: command.allow_negative_available ?? false,
      reason,
    };
  }
  const debit: AdjustmentPlatformAccount | null | undefined = command.debit_account;
  const credit: AdjustmentPlatformAccount | null | undefined = command.credit_account;
  if (debit == null || credit == null)
    return refuse(
      'INVALID_FIELDS',
      'Campos inválidos: business_id, ou debit_account e credit_account (um ajuste da plataforma).',
    );
  if (debit === credit)
    return refuse(
      'INVALID_FIELDS',
      'Campos inválidos: debit_account e credit_account devem ser contas diferentes.',
    );
  if (command.counter_account != null || command.allow_negative_available === true)
    return refuse(
      'INVALID_FIELDS',
      'Campos inválidos: counter_account, allow_negative_available (só para o ajuste de um negócio).',
    );
  if (amount <= 0)
    return refuse(
      'INVALID_AMOUNT',
      'O valor de um ajuste da plataforma é positivo: vai de credit_account a debit_account.',
    );
  return {
    kind: 'platform',
    businessId: null,
    amountCentavos: amount,
    debitAccount: debit,
    creditAccount: credit,
    allowNegativeAvailable: false,
    reason,
  };
}

export const isRefusal = (value: AdjustmentRequest | Refusal): value is Refusal => 'code' in value;

/**
 * A debit may take `available` below zero only when the operator said so: otherwise a debit larger than what is
 * available (under the balance row's lock) is INSUFFICIENT_BALANCE, as a payout would be.
 */
export function debitRefusal(request: AdjustmentRequest, availableCentavos: number): Refusal | null {
  if (request.kind !== 'business' || request.amountCentavos > 0 || request.allowNegativeAvailable)
    return null;
  if (availableCentavos + request.amountCentavos >= 0) return null;
  return refuse(
    'INSUFFICIENT_BALANCE',
    'O saldo disponível não cobre o débito (allow_negative_available: true o permite, deixando o saldo negativo).',
  );
}

/**
 * The adjustment's journal. Business: the business's `available` and the counter account, with an `adjustment`
 * balance transaction (signed amount, fee 0, the reason as its description), `available` at once: the operator's
 * decision is the release, as for funds the operator assigns. Platform: the two platform accounts, no balance
 * transaction. No rail reference: no money moved at a rail by this journal, so reconciliation weighs it in the
 * account's balance only, never as a Pix received or sent.
 */
export function adjustmentPosting(
  request: AdjustmentRequest,
  adjustmentId: string,
  at: Date,
): Posting | PlatformPosting {
  const magnitude = Math.abs(request.amountCentavos);
  const line = (account: Account, amountCentavos: number) => ({
    account,
    businessId: account === 'available' ? request.businessId : null,
    amountCentavos,
  });
  const lines = [line(request.debitAccount, magnitude), line(request.creditAccount, -magnitude)];
  const causeKey = adjustmentCauseKey(adjustmentId);
  if (request.kind === 'platform') return platformPosting({ causeKey, kind: 'adjustment', lines });
  return posting({
    causeKey,
    kind: 'adjustment',
    businessId: request.businessId!,
    lines,
    balanceTransaction: {
      type: 'adjustment',
      sourceId: adjustmentId,
      amountCentavos: request.amountCentavos,
      feeCentavos: 0,
      netCentavos: request.amountCentavos,
      status: 'available',
      availableOn: at,
      occurredAt: at,
      description: request.reason,
    },
    settlement: null,
  });
}

/** Whether a stored adjustment is what this request asks (the same Idempotency-Key sent again). */
export function isSameAdjustment(stored: AdjustmentRecord, request: AdjustmentRequest): boolean {
  return (
    stored.kind === request.kind &&
    stored.business_id === request.businessId &&
    stored.amount_centavos === request.amountCentavos &&
    stored.debit_account === request.debitAccount &&
    stored.credit_account === request.creditAccount &&
    stored.allow_negative_available === request.allowNegativeAvailable &&
    stored.reason === request.reason
  );
}
