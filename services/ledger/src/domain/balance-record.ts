import type {
  Balance,
  BalanceTransaction,
  BalanceTransactionStatus,
  BalanceTransactionType,
} from '@gateway/contracts';

/** A balance as the ledger stores it (the entity has this shape). */
export interface StoredBalance {
  businessId: string;
  availableCentavos: number;
  pendingCentavos: number;
  reservedCentavos: number;
  blockedCentavos: number;
  updatedAt: Date;
}

/** Before any money moved: all four at zero, dated at the epoch. */
const NO_MONEY_MOVED_AT = new Date(0);

export function toBalance(businessId: string, stored: StoredBalance | null): Balance {
  return {
    business_id: businessId,
    available_centavos: stored?.availableCentavos ?? 0,
    pending_centavos: stored?.pendingCentavos ?? 0,
    reserved_centavos: stored?.reservedCentavos ?? 0,
    blocked_centavos: stored?.blockedCentavos ?? 0,
    updated_at: (stored?.updatedAt ?? NO_MONEY_MOVED_AT).toISOString(),
  };
}

/** A balance transaction as the ledger stores it. */
export interface StoredBalanceTransaction {
  id: string;
  businessId: string;
  type: BalanceTransactionType;
  sourceId: string;
  amountCentavos: number;
  feeCentavos: number;
  netCentavos: number;
  status: BalanceTransactionStatus;
  availableOn: Date;
  createdAt: Date;
  occurredAt: Date;
  description: string;
}

export function toBalanceTransaction(stored: StoredBalanceTransaction): BalanceTransaction {
  return {
    balance_transaction_id: stored.id,
    business_id: stored.businessId,
    type: stored.type,
    source_id: stored.sourceId,
    amount_centavos: stored.amountCentavos,
    fee_centavos: stored.feeCentavos,
    net_centavos: stored.netCentavos,
    status: stored.status,
    available_on: stored.availableOn.toISOString(),
    created_at: stored.createdAt.toISOString(),
    occurred_at: stored.occurredAt.toISOString(),
    description: stored.description,
  };
}
