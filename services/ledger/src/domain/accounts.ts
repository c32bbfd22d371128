import type { PaymentMethod } from '@gateway/contracts';

/**
 * The ledger's accounts (docs/money-model.md#accounts). A business's four balances are what the platform owes it;
 * the platform's own accounts are what it holds (`cash_psp`, `tokens:<token>`), what it earned (`fee_revenue`) and
 * money that belongs to no payment yet (`suspense`).
 */
export const businessAccounts = ['pending', 'available', 'reserved', 'blocked'] as const;
export type BusinessAccount = (typeof businessAccounts)[number];

export type PlatformAccount =
  | 'cash_psp'
  | 'fee_revenue'
  | 'suspense'
  | `tokens:${string}`
  // What the PSP charged the platform (an expense), and what the platform gave or took back by an operator's
  // adjustment (docs/money-model.md#adjustments).
  | 'psp_fees'
  | 'platform_adjustments'
  // The fees businesses paid directly into their own PSP accounts owe the platform (docs/money-model.md#custodial-and-direct-models).
  | 'fees_receivable';
export type Account = BusinessAccount | PlatformAccount;

/** The token account of a crypto payment whose record did not name its token (events written before it did). */
export const UNKNOWN_TOKEN_ACCOUNT = 'tokens:unknown';

export function isBusinessAccount(account: string): account is BusinessAccount {
  return (businessAccounts as readonly string[]).includes(account);
}

/**
 * Where a payment's money is held: the BRL at the PSP for PIX, the token (at the BRL cost of the quote locked when the
 * payment was created) for crypto.
 */
export function holdingAccount(method: PaymentMethod, token: string | null | undefined): PlatformAccount {
  if (method === 'pix') return 'cash_psp';
  return token ? `tokens:${token.toLowerCase()}` : UNKNOWN_TOKEN_ACCOUNT;
}

/** A holding account as stored (`cash_psp`, `tokens:<token>`); anything else is not where money is held. */
export function storedHoldingAccount(stored: string): PlatformAccount {
  if (stored === 'cash_psp' || stored.startsWith('tokens:')) return stored as PlatformAccount;
  throw new Error(`not a holding account: ${stored}`);
}
