// Generated from the gateway's operation table by `pnpm generate:sdk` (scripts/generate-sdk-types.ts): do not
// edit. The JSON Schema of the gateway's OpenAPI document as TypeScript: its schemas by name, and each JSON
// operation's body, query and success answer by its operation id, as the handlers of the operation table take and
// give them (the query as checked: a parameter with a default is always there).

export interface Adjustment {
  id: string;
  /** `business`: a business's `available` against a platform account; `platform`: two platform accounts. */
  type: 'business' | 'platform';
  business_id: string | null;
  /** Business: signed, positive credits the business. Platform: positive, from credit to debit account. */
  amount_brl: number;
  debit_account: string;
  credit_account: string;
  allow_negative_available: boolean;
  reason: string;
  /** The credential that asked (the admin token). */
  requested_by: string;
  /** The journal's id in the books. */
  journal_id: string;
  /** The business's `adjustment` balance transaction; null for a platform adjustment. */
  balance_transaction_id: string | null;
  created_at: string;
}

export interface AdjustmentList {
  data: Adjustment[];
  has_more: boolean;
}

export interface AdjustmentRequest {
  /** The business whose `available` balance is adjusted; absent for a platform adjustment (`debit_account`, `credit_account`). */
  business_id?: string;
  /** Integer centavos, never 0. Business: positive credits it, negative debits it. Platform: positive. */
  amount: number;
  /** Business: the platform account on the other side (`platform_adjustments` unless given; `fee_revenue` gives a fee back). */
  account?: 'platform_adjustments' | 'fee_revenue';
  /** Platform: the account debited (e.g. `psp_fees` for a tariff the PSP took). */
  debit_account?: 'cash_psp' | 'psp_fees' | 'platform_adjustments' | 'fee_revenue';
  /** Platform: the account credited (e.g. `cash_psp`, the money that left the PSP account). */
  credit_account?: 'cash_psp' | 'psp_fees' | 'platform_adjustments' | 'fee_revenue';
  /** Business debit: may take `available` below zero; without it, a debit over `available` is `INSUFFICIENT_BALANCE`. */
  allow_negative_available?: boolean;
  /** Why: the business's statement shows it as the balance transaction's description. */
  reason: string;
}

export interface AdvanceSubscriptionClockRequest {
  to: string;
}

export interface AmountParts {
  /** BRL (integer centavos / 100). */
  original: number;
  /** BRL (integer centavos / 100). */
  fine: number;
  /** BRL (integer centavos / 100). */
  interest: number;
  /** BRL (integer centavos / 100). */
  reduction: number;
  /** BRL (integer centavos / 100). */
  discount: number;
}

export interface ApiKeyIssued {
  business_id: string;
  /** Shown once: store it now. */
  api_key: string;
  key_prefix: string;
  /** What the key may do (a `:write` scope covers its `:read` one); null: every scope. */
  scopes:
    | (
        | 'payments:read'
        | 'payments:write'
        | 'refunds:read'
        | 'refunds:write'
        | 'checkouts:read'
        | 'checkouts:write'
        | 'customers:read'
        | 'customers:write'
        | 'webhooks:read'
        | 'webhooks:write'
        | 'events:read'
        | 'balance:read'
        | 'payouts:read'
        | 'payouts:write'
      )[]
    | null;
}

export interface ApiKeyPurpose {
  key_prefix: string;
  /** Whom the key is for: `merchant` (every key unless told), or `dashboard`, the key the merchant dashboard holds sealed and acts with, counted against its own rate limit (DASHBOARD_RATE_LIMIT_PER_MINUTE). */
  purpose: 'merchant' | 'dashboard';
}

export interface ApiKeyPurposeRequest {
  /** Whom the key is for: `merchant` (every key unless told), or `dashboard`, the key the merchant dashboard holds sealed and acts with, counted against its own rate limit (DASHBOARD_RATE_LIMIT_PER_MINUTE). */
  purpose: 'merchant' | 'dashboard';
}

export interface ApiKeyRevoked {
  revoked: true;
}

export interface ApiKeyRolled {
  business_id: string;
  /** Shown once: store it now. */
  api_key: string;
  key_prefix: string;
  /** What the key may do (a `:write` scope covers its `:read` one); null: every scope. */
  scopes:
    | (
        | 'payments:read'
        | 'payments:write'
        | 'refunds:read'
        | 'refunds:write'
        | 'checkouts:read'
        | 'checkouts:write'
        | 'customers:read'
        | 'customers:write'
        | 'webhooks:read'
        | 'webhooks:write'
        | 'events:read'
        | 'balance:read'
        | 'payouts:read'
        | 'payouts:write'
      )[]
    | null;
  previous_key_prefix: string;
  /** When the rolled key stops working. */
  previous_key_expires_at: string;
}

export interface AssignReceivedFundsRequest {
  /** The payment whose business is credited; by default the one the money named (required when the gateway does not know that payment). */
  payment_id?: string | null;
}

export interface Balance {
  /** Settled money the business may pay out or refund from. */
  available_brl: number;
  /** Paid, not settled yet: it becomes available on its `available_on`. */
  pending_brl: number;
  /** Promised to a refund or a payout in flight; still the business's until it leaves. */
  reserved_brl: number;
  /** Held by an open dispute. */
  blocked_brl: number;
  /** The last time any part changed. */
  updated_at: string;
}

export interface BalanceTransaction {
  id: string;
  type: 'payment' | 'refund' | 'payout' | 'dispute' | 'dispute_won' | 'adjustment';
  /** What caused it: a payment, refund, payout, dispute or adjustment id. */
  source_id: string;
  /** Signed gross amount: negative for a refund, a payout or a dispute. */
  amount_brl: number;
  /** The fee taken (never negative). */
  fee_brl: number;
  /** Signed: `amount_brl` less `fee_brl`, what the balance moved by. */
  net_brl: number;
  status: 'pending' | 'available';
  /** When its money is (or was) available. */
  available_on: string;
  /** When it was posted to the books: the month whose statement lists it, and the time the filters and the order use. */
  created_at: string;
  /** When the money moved (a payment paid, a refund sent); `available_on` counts from it. Earlier than `created_at` when it was posted late. */
  occurred_at: string;
  description: string;
}

export interface Business {
  business_id: string;
  name: string;
  environment: 'sandbox' | 'production';
  created_at: string;
  api_keys: {
    key_prefix: string;
    /** What the key may do (a `:write` scope covers its `:read` one); null: every scope. */
    scopes:
      | (
          | 'payments:read'
          | 'payments:write'
          | 'refunds:read'
          | 'refunds:write'
          | 'checkouts:read'
          | 'checkouts:write'
          | 'customers:read'
          | 'customers:write'
          | 'webhooks:read'
          | 'webhooks:write'
          | 'events:read'
          | 'balance:read'
          | 'payouts:read'
          | 'payouts:write'
        )[]
      | null;
    /** Whom the key is for: `merchant` (every key unless told), or `dashboard`, the key the merchant dashboard holds sealed and acts with, counted against its own rate limit (DASHBOARD_RATE_LIMIT_PER_MINUTE). */
    purpose: 'merchant' | 'dashboard';
    /** `rolled`: a successor was issued and this key works until `expires_at`; `expired`, `revoked`: it no longer works. */
    status: 'active' | 'rolled' | 'expired' | 'revoked';
    created_at: string;
    /** When a rolled key stops working. */
    expires_at: string | null;
    revoked_at: string | null;
    /** Its successor. */
    rolled_to: string | null;
  }[];
  api_keys_has_more: boolean;
}

export interface BusinessCreated {
  business_id: string;
  name: string;
  environment: 'sandbox' | 'production';
  /** Shown once: store it now. */
  api_key: string;
  key_prefix: string;
  /** Whom the key is for: `merchant` (every key unless told), or `dashboard`, the key the merchant dashboard holds sealed and acts with, counted against its own rate limit (DASHBOARD_RATE_LIMIT_PER_MINUTE). */
  key_purpose: 'merchant' | 'dashboard';
  created_at: string;
}

export interface BusinessList {
  data: BusinessSummary[];
  has_more: boolean;
}

export interface BusinessSummary {
  business_id: string;
  name: string;
  environment: 'sandbox' | 'production';
  created_at: string;
}

export interface Checkout {
  checkout_id: string;
  business_id: string;
  product_id: string;
  slug: string;
  title: string | null;
  return_url: string;
  cancel_url: string;
  metadata: string | null;
  status: 'active' | 'inactive';
  created_at: string;
  sessions?: {
    session_id: string;
    checkout_id: string;
    payment_id: string;
    status: 'initiated' | 'paid' | 'expired' | 'failed' | 'cancelled';
    created_at: string;
  }[];
  sessions_has_more?: boolean;
  /** The hosted checkout page. */
  url: string;
}

export interface CheckoutSessionStarted {
  session_id: string;
  /** A recurring product's session: the subscription it started (its first cycle is `payment`). */
  subscription_id?: string;
  status: 'initiated';
  payment: {
    method: 'pix' | 'crypto';
    expires_at: string;
    pix?: PixCode;
    crypto?: {
      qr_code: string;
      payment_link: string;
      amount: number;
      currency: 'USDC' | 'USDT' | 'EURC';
      wallet_address: string;
    };
  };
}

export interface CheckoutSessionStatus {
  status: 'initiated' | 'paid' | 'expired' | 'failed' | 'cancelled';
  /** Where to send the buyer, once `paid`; null before. */
  return_url: string | null;
}

export interface CheckoutWithSessions {
  checkout_id: string;
  business_id: string;
  product_id: string;
  slug: string;
  title: string | null;
  return_url: string;
  cancel_url: string;
  metadata: string | null;
  status: 'active' | 'inactive';
  created_at: string;
  /** The hosted checkout page. */
  url: string;
  sessions: {
    session_id: string;
    checkout_id: string;
    payment_id: string;
    status: 'initiated' | 'paid' | 'expired' | 'failed' | 'cancelled';
    created_at: string;
  }[];
  sessions_has_more: boolean;
}

export interface CreateBusinessRequest {
  name: string;
  /** Whom the first key is for (`merchant` unless told). */
  key_purpose?: 'merchant' | 'dashboard';
}

export interface CreateCheckoutRequest {
  product_id: string;
  return_url: string;
  cancel_url: string;
  title?: string | null;
  slug?: string | null;
  /** Serialized JSON text with the caller's own data. */
  metadata?: string | null;
}

export interface CreateCustomerRequest {
  name?: string | null;
  email?: string | null;
  phone_number?: string | null;
  document_number?: string | null;
  /** Serialized JSON text with the caller's own data. */
  metadata?: string | null;
}

export interface CreateOwnProductRequest {
  name: string;
  price: number;
  description?: string | null;
  /** Recurring: its checkouts sell a subscription of `price` every `interval` (Pix Automático: the buyer gives a name and CPF, and one QR code pays the first cycle and authorizes the rest). Null or absent: a one-off sale. */
  interval?: 'weekly' | 'monthly' | 'quarterly' | 'semiannual' | 'yearly' | null;
}

export type CreatePaymentRequest =
  | {
      payment_method: 'pix';
      amount: number;
      currency?: 'BRL' | 'brl';
      /** Serialized JSON text with the caller's own data. */
      metadata?: string | null;
      description?: string | null;
      customer_id?: string | null;
      crypto?: unknown;
      pix?: {
        /** A charge with a due date (API Pix `cobv`; docs/payments.md#pix-charges-with-a-due-date): money in integer centavos, percentages in basis points. Needs `customer_id`, a customer with a name and a valid CPF or CNPJ. */
        due?: {
          date: string;
          payable_days_after?: number;
          fine?:
            | {
                amount: number;
              }
            | {
                percent_bps: number;
              };
          interest?:
            | {
                amount: number;
                days?: 'calendar' | 'business';
              }
            | {
                percent_bps: number;
                per: 'day' | 'month' | 'year';
                days?: 'calendar' | 'business';
              };
          reduction?:
            | {
                amount: number;
              }
            | {
                percent_bps: number;
              };
          discount?:
            | {
                until: (
                  | {
                      amount: number;
                      date: string;
                    }
                  | {
                      percent_bps: number;
                      date: string;
                    }
                )[];
              }
            | {
                per_day_early:
                  | {
                      amount: number;
                      days?: 'calendar' | 'business';
                    }
                  | {
                      percent_bps: number;
                      days?: 'calendar' | 'business';
                    };
              };
        };
      };
    }
  | {
      payment_method: 'crypto';
      amount: number;
      currency?: 'BRL' | 'brl';
      /** Serialized JSON text with the caller's own data. */
      metadata?: string | null;
      description?: string | null;
      customer_id?: string | null;
      crypto: {
        currency: 'usdc' | 'usdt' | 'eurc' | 'USDC' | 'USDT' | 'EURC';
        network: 'solana';
      };
      pix?: {
        /** A charge with a due date (API Pix `cobv`; docs/payments.md#pix-charges-with-a-due-date): money in integer centavos, percentages in basis points. Needs `customer_id`, a customer with a name and a valid CPF or CNPJ. */
        due?: {
          date: string;
          payable_days_after?: number;
          fine?:
            | {
                amount: number;
              }
            | {
                percent_bps: number;
              };
          interest?:
            | {
                amount: number;
                days?: 'calendar' | 'business';
              }
            | {
                percent_bps: number;
                per: 'day' | 'month' | 'year';
                days?: 'calendar' | 'business';
              };
          reduction?:
            | {
                amount: number;
              }
            | {
                percent_bps: number;
              };
          discount?:
            | {
                until: (
                  | {
                      amount: number;
                      date: string;
                    }
                  | {
                      percent_bps: number;
                      date: string;
                    }
                )[];
              }
            | {
                per_day_early:
                  | {
                      amount: number;
                      days?: 'calendar' | 'business';
                    }
                  | {
                      percent_bps: number;
                      days?: 'calendar' | 'business';
                    };
              };
        };
      };
    };

export interface CreatePayoutRequest {
  amount?: number | null;
}

export interface CreateProductRequest {
  name: string;
  price: number;
  description?: string | null;
  /** Recurring: its checkouts sell a subscription of `price` every `interval` (Pix Automático: the buyer gives a name and CPF, and one QR code pays the first cycle and authorizes the rest). Null or absent: a one-off sale. */
  interval?: 'weekly' | 'monthly' | 'quarterly' | 'semiannual' | 'yearly' | null;
}

export interface CreateRefundRequest {
  amount?: number | null;
  reason?: string | null;
}

export interface CreateSubscriptionRequest {
  customer_id: string;
  /** A fixed amount per cycle, integer centavos (API Pix `valorRec`). */
  amount?: number;
  /** Instead of `amount`: the amount varies per cycle, at least this (integer centavos, `valorMinimoRecebedor`). */
  minimum_amount?: number;
  interval: 'weekly' | 'monthly' | 'quarterly' | 'semiannual' | 'yearly';
  /** The first cycle's due date (`YYYY-MM-DD`, America/Sao_Paulo): not before today; for `push` and `qr`, at least 3 days ahead (BCB: a cycle is sent 2 to 10 days before it is due). */
  start_date: string;
  /** No cycle falls after it; absent or null: until cancelled. */
  end_date?: string | null;
  description?: string | null;
  /** `three_in_seven_days`: a failed debit is tried again up to 3 times within 7 days. Default `none`. */
  retry_policy?: 'none' | 'three_in_seven_days';
  authorization: {
    journey: 'push' | 'qr' | 'qr_with_first_payment';
    /** `push` only (required there): the payer's bank account. */
    payer_account?: {
      ispb: string;
      branch: string | null;
      account: string;
    };
  };
  /** Serialized JSON text with the caller's own data. */
  metadata?: string | null;
}

export interface CreateWebhookRequest {
  url: string;
  events: (
    | 'payment.created'
    | 'payment.confirmed'
    | 'payment.expired'
    | 'payment.failed'
    | 'payment.cancelled'
    | 'refund.succeeded'
    | 'refund.failed'
    | 'payout.paid'
    | 'payout.failed'
    | 'dispute.created'
    | 'dispute.closed'
    | 'subscription.created'
    | 'subscription.activated'
    | 'subscription.cancelled'
    | 'subscription.expired'
    | 'subscription.cycle_retry_scheduled'
  )[];
}

export interface CryptoPayer {
  /** Owner of the token account the transfer debited. */
  address: string;
}

export interface CryptoPaymentCreated {
  payment_id: string;
  /** BRL (integer centavos / 100). */
  amount: number;
  /** BRL (integer centavos / 100). */
  fee_brl: number;
  /** BRL (integer centavos / 100). */
  net_amount_brl: number;
  status: 'pending' | 'processing' | 'paid' | 'failed' | 'expired' | 'cancelled';
  customer_id: string | null;
  payment_method: 'crypto';
  crypto: CryptoPaymentInstructions;
}

export interface CryptoPaymentInstructions {
  currency: 'USDC' | 'USDT' | 'EURC';
  network: 'solana';
  /** PNG data URI of the QR code of the payment link. */
  qr_code: string;
  /** Solana Pay transfer request URL. */
  payment_link: string;
  wallet_address: string;
  /** Amount in the token. */
  amount: number;
  expires_at: string;
}

export interface Customer {
  customer_id: string;
  business_id: string;
  name: string | null;
  email: string | null;
  phone_number: string | null;
  document_number: string | null;
  ip: string | null;
  metadata: string | null;
  created_at: string;
}

export interface DeliveryRetried {
  delivery_id: string;
  status: string;
}

export interface Dispute {
  dispute_id: string;
  payment_id: string;
  /** What the payer's bank claims back: blocked in the balance while open. */
  amount_brl: number;
  /** `open` until the MED ends: `won` (the amount is released) or `lost` (it went back to the payer). */
  status: 'open' | 'won' | 'lost';
  /** The nature the PSP gave it (`MED_FRAUDE`, `MED_OPERACIONAL`) or its reason. */
  reason: string | null;
  /** When the business's defence reached the PSP (POST /v1/disputes/{dispute_id}/defence); null until then. */
  defence_submitted_at?: string | null;
  created_at: string;
  updated_at: string;
}

export interface DisputeClosedEvent {
  /** Also the `webhook-id` header of its deliveries: dedupe on it. */
  id: string;
  type: 'dispute.closed';
  created_at: string;
  business_id: string;
  data: Dispute;
}

export interface DisputeCreatedEvent {
  /** Also the `webhook-id` header of its deliveries: dedupe on it. */
  id: string;
  type: 'dispute.created';
  created_at: string;
  business_id: string;
  data: Dispute;
}

export interface Event {
  /** Also the `webhook-id` header of its deliveries: dedupe on it. */
  id: string;
  type:
    | 'payment.created'
    | 'payment.confirmed'
    | 'payment.expired'
    | 'payment.failed'
    | 'payment.cancelled'
    | 'refund.succeeded'
    | 'refund.failed'
    | 'payout.paid'
    | 'payout.failed'
    | 'dispute.created'
    | 'dispute.closed'
    | 'subscription.created'
    | 'subscription.activated'
    | 'subscription.cancelled'
    | 'subscription.expired'
    | 'subscription.cycle_retry_scheduled';
  created_at: string;
  business_id: string;
  data: EventPayment | EventRefund | Payout;
}

export interface EventPayment {
  payment_id: string;
  /** The rail's settlement id once paid (PIX endToEndId, Solana signature). */
  transaction_id: string | null;
  business_id: string;
  method: 'pix' | 'crypto';
  status: 'pending' | 'processing' | 'paid' | 'failed' | 'expired' | 'cancelled';
  /** BRL (integer centavos / 100). */
  amount_brl: number;
  /** The gateway's fee for this payment. */
  fee_brl?: number;
  /** What the business receives: `amount_brl - fee_brl` (`amount_paid - fee_brl` once a due-date charge is paid). */
  net_amount_brl?: number;
  /** The PSP txid (PIX) or the reference public key (crypto). */
  external_id: string | null;
  failure_code: string | null;
  failure_reason: string | null;
  /** What the payment is for, as it was created; a PIX charge shows it in the payer's bank app. */
  description?: string | null;
  customer_id: string | null;
  /** BRL (integer centavos / 100). */
  refunded_amount_brl: number;
  /** When the payment window ends (the PIX charge's, or the crypto request's); null for a PIX charge with a due date. */
  expires_at?: string | null;
  /** A PIX charge with a due date (`pix.due`): its due date (`YYYY-MM-DD`, America/Sao_Paulo). Only on one. */
  due_date?: string;
  /** A PIX charge with a due date: the last day it can be paid (the due date and `payable_days_after`, each moved to a business day); it expires after it. Only on one. */
  payable_until?: string | null;
  /** A PIX charge with a due date, once paid: what was paid (with fine and interest, less reduction and discount; `amount_brl` stays the original); null until then. Only on one. */
  amount_paid?: number | null;
  /** A PIX charge with a due date, once paid: why `amount_paid` differs from the original (API Pix `componentesValor`): original + fine + interest − reduction − discount. Only on one. */
  amount_parts?: AmountParts | null;
  /** A subscription's cycle: the subscription (`sub_...`); null for any other payment. */
  subscription_id: string | null;
  /** A subscription's cycle: its number (1, 2, …); null for any other payment. */
  cycle: number | null;
  /** Who paid: null until `paid`, and null when the rail did not say. */
  payer?: PixPayer | CryptoPayer | null;
  created_at: string;
  updated_at: string;
}

export interface EventRefund {
  refund_id: string;
  payment_id: string;
  /** BRL (integer centavos / 100). */
  amount_brl: number;
  status: 'pending' | 'succeeded' | 'failed';
  reason: string | null;
  failure_reason: string | null;
  /** The PIX devolução id or the Solana transaction signature. */
  external_id: string | null;
  /** The received funds (an overpayment's excess) this refund also returns to the payer besides `amount_brl`: the refund that completes the payment's refunds carries the excess still held. Null when none. */
  returned_funds_id?: string | null;
  created_at: string;
  updated_at: string;
}

export interface FeeRule {
  business_id: string;
  method: 'pix' | 'crypto';
  percent_bps: number;
  fixed_centavos: number;
}

export interface FeeRuleRequest {
  percent_bps: number;
  fixed_centavos: number;
}

export interface IssueApiKeyRequest {
  /** Limits the key to these scopes (`read_only`: every `:read` one). Left out: the key may do everything. */
  scopes?: (
    | 'payments:read'
    | 'payments:write'
    | 'refunds:read'
    | 'refunds:write'
    | 'checkouts:read'
    | 'checkouts:write'
    | 'customers:read'
    | 'customers:write'
    | 'webhooks:read'
    | 'webhooks:write'
    | 'events:read'
    | 'balance:read'
    | 'payouts:read'
    | 'payouts:write'
    | 'read_only'
  )[];
}

export interface OperatorProduct {
  product_id: string;
  business_id: string;
  name: string;
  description: string | null;
  /** BRL (integer centavos / 100). */
  price: number;
  /** `inactive`: no new checkout may sell it (its existing checkouts are left as they are). */
  status: 'active' | 'inactive';
  /** Recurring: its checkouts sell a subscription of `price` every `interval` (Pix Automático: the buyer gives a name and CPF, and one QR code pays the first cycle and authorizes the rest). Null or absent: a one-off sale. */
  interval: 'weekly' | 'monthly' | 'quarterly' | 'semiannual' | 'yearly' | null;
  created_at: string;
  price_centavos: number;
}

export interface OperatorReceivedFunds {
  funds_id: string;
  kind: 'late' | 'excess' | 'partial' | 'unmatched' | 'unreadable';
  rail: 'pix' | 'crypto';
  reference: string;
  /** Crypto: which transfer instruction of the transaction `reference` carried this money ("2", or "2.0" for an inner one); one transaction may hold several transfers kept for the payment, each its own record. Null for PIX, for what a crypto window collected and for a whole transaction (unreadable, excess). */
  instruction: string | null;
  /** BRL (integer centavos / 100). */
  amount_brl: number | null;
  amount_token: number | null;
  detected_at: string;
  /** `held` (not returned), `returning` (a refund in flight carries it, or the operator is sending it back through its rail), `returned` (by a refund that succeeded, by hand, or by the operator through the rail), `assigned` (the operator credited it to a business: never returned then). Money goes back once: by a refund, by hand or by the operator, never twice. Money one transfer instruction sent naming several payments is kept by each and goes back through one of them: the others' records then show that return. */
  status: 'held' | 'returning' | 'returned' | 'assigned';
  /** The refund (`ref_...`) that returns it, `manual` when returned by hand, `operator` when the operator sends it back through its rail, null while held. */
  returned_by: string | null;
  returned_at: string | null;
  /** What the platform holds the money at, in BRL: the PIX amount; tokens that arrived within their payment's window at the quote it locked, tokens that arrived outside it at `arrival_quote`. Credited to the business (returned by hand, assigned) as a payment of the rail would be: less the fee, pending until the settlement delay is over. Null when it was not valued (no quote could be had): it cannot be credited. */
  value_brl: number | null;
  /** Tokens that arrived outside their payment's window (late, after it was paid, in another token, naming several payments): the quote of their arrival that gave `value_brl`, never the quote the payment locked. Null for PIX and for tokens valued at their payment's own quote or not valued. */
  arrival_quote: {
    /** How many tokens one BRL bought at that quote. */
    token_per_brl: number;
    quoted_at: string;
  } | null;
  /** The payment the money named (possibly one the gateway does not know: kept as unmatched). */
  payment_id: string;
  /** The payment's business; null when the gateway does not know the payment. */
  business_id: string | null;
  /** Crypto: the amount in token base units (also when the token is not known); null for PIX. */
  amount_base_units: string | null;
  /** Status `assigned`: the payment whose business the operator credited the money to; null otherwise. */
  assigned_payment_id: string | null;
  assigned_at: string | null;
  /** Returned by the operator through the rail (`returned_by` `operator`): the PIX devolução id or the Solana signature of the return; null otherwise. */
  return_reference: string | null;
  /** Why the operator's last return through the rail failed (the money is `held` again and can be returned again); null otherwise. */
  return_failure_reason: string | null;
}

export interface ParkedMessages {
  queues: {
    queue: string;
    parked: number;
  }[];
  total_parked: number;
}

export interface Payment {
  payment_id: string;
  /** The rail's settlement id once paid (PIX endToEndId, Solana signature). */
  transaction_id: string | null;
  business_id: string;
  method: 'pix' | 'crypto';
  status: 'pending' | 'processing' | 'paid' | 'failed' | 'expired' | 'cancelled';
  /** BRL (integer centavos / 100). */
  amount_brl: number;
  /** The gateway's fee for this payment. */
  fee_brl: number;
  /** What the business receives: `amount_brl - fee_brl` (`amount_paid - fee_brl` once a due-date charge is paid). */
  net_amount_brl: number;
  /** The PSP txid (PIX) or the reference public key (crypto). */
  external_id: string | null;
  failure_code: string | null;
  failure_reason: string | null;
  /** What the payment is for, as it was created; a PIX charge shows it in the payer's bank app. */
  description: string | null;
  customer_id: string | null;
  /** BRL (integer centavos / 100). */
  refunded_amount_brl: number;
  /** When the payment window ends (the PIX charge's, or the crypto request's); null for a PIX charge with a due date. */
  expires_at: string | null;
  /** A PIX charge with a due date (`pix.due`): its due date (`YYYY-MM-DD`, America/Sao_Paulo). Only on one. */
  due_date?: string;
  /** A PIX charge with a due date: the last day it can be paid (the due date and `payable_days_after`, each moved to a business day); it expires after it. Only on one. */
  payable_until?: string | null;
  /** A PIX charge with a due date, once paid: what was paid (with fine and interest, less reduction and discount; `amount_brl` stays the original); null until then. Only on one. */
  amount_paid?: number | null;
  /** A PIX charge with a due date, once paid: why `amount_paid` differs from the original (API Pix `componentesValor`): original + fine + interest − reduction − discount. Only on one. */
  amount_parts?: AmountParts | null;
  /** A subscription's cycle: the subscription (`sub_...`); null for any other payment. */
  subscription_id: string | null;
  /** A subscription's cycle: its number (1, 2, …); null for any other payment. */
  cycle: number | null;
  /** Who paid: null until `paid`, and null when the rail did not say. */
  payer: PixPayer | CryptoPayer | null;
  created_at: string;
  updated_at: string;
}

export interface PaymentCancelledEvent {
  /** Also the `webhook-id` header of its deliveries: dedupe on it. */
  id: string;
  type: 'payment.cancelled';
  created_at: string;
  business_id: string;
  data: EventPayment;
}

export interface PaymentConfirmedEvent {
  /** Also the `webhook-id` header of its deliveries: dedupe on it. */
  id: string;
  type: 'payment.confirmed';
  created_at: string;
  business_id: string;
  data: EventPayment;
}

export interface PaymentCreatedEvent {
  /** Also the `webhook-id` header of its deliveries: dedupe on it. */
  id: string;
  type: 'payment.created';
  created_at: string;
  business_id: string;
  data: EventPayment;
}

export interface PaymentDetails {
  payment_id: string;
  /** The rail's settlement id once paid (PIX endToEndId, Solana signature). */
  transaction_id: string | null;
  business_id: string;
  method: 'pix' | 'crypto';
  status: 'pending' | 'processing' | 'paid' | 'failed' | 'expired' | 'cancelled';
  /** BRL (integer centavos / 100). */
  amount_brl: number;
  /** The gateway's fee for this payment. */
  fee_brl: number;
  /** What the business receives: `amount_brl - fee_brl` (`amount_paid - fee_brl` once a due-date charge is paid). */
  net_amount_brl: number;
  /** The PSP txid (PIX) or the reference public key (crypto). */
  external_id: string | null;
  failure_code: string | null;
  failure_reason: string | null;
  /** What the payment is for, as it was created; a PIX charge shows it in the payer's bank app. */
  description: string | null;
  customer_id: string | null;
  /** BRL (integer centavos / 100). */
  refunded_amount_brl: number;
  /** When the payment window ends (the PIX charge's, or the crypto request's); null for a PIX charge with a due date. */
  expires_at: string | null;
  /** A PIX charge with a due date (`pix.due`): its due date (`YYYY-MM-DD`, America/Sao_Paulo). Only on one. */
  due_date?: string;
  /** A PIX charge with a due date: the last day it can be paid (the due date and `payable_days_after`, each moved to a business day); it expires after it. Only on one. */
  payable_until?: string | null;
  /** A PIX charge with a due date, once paid: what was paid (with fine and interest, less reduction and discount; `amount_brl` stays the original); null until then. Only on one. */
  amount_paid?: number | null;
  /** A PIX charge with a due date, once paid: why `amount_paid` differs from the original (API Pix `componentesValor`): original + fine + interest − reduction − discount. Only on one. */
  amount_parts?: AmountParts | null;
  /** A subscription's cycle: the subscription (`sub_...`); null for any other payment. */
  subscription_id: string | null;
  /** A subscription's cycle: its number (1, 2, …); null for any other payment. */
  cycle: number | null;
  /** Who paid: null until `paid`, and null when the rail did not say. */
  payer: PixPayer | CryptoPayer | null;
  created_at: string;
  updated_at: string;
  pix?: PixCode;
  crypto?: CryptoPaymentInstructions;
}

export interface PaymentExpiredEvent {
  /** Also the `webhook-id` header of its deliveries: dedupe on it. */
  id: string;
  type: 'payment.expired';
  created_at: string;
  business_id: string;
  data: EventPayment;
}

export interface PaymentFailedEvent {
  /** Also the `webhook-id` header of its deliveries: dedupe on it. */
  id: string;
  type: 'payment.failed';
  created_at: string;
  business_id: string;
  data: EventPayment;
}

export interface PaymentUpdated {
  payment_id: string;
  /** BRL (integer centavos / 100). */
  amount: number;
  /** BRL (integer centavos / 100). */
  fee_brl: number;
  /** BRL (integer centavos / 100). */
  net_amount_brl: number;
  status: 'pending' | 'processing' | 'paid' | 'failed' | 'expired' | 'cancelled';
  pix?: PixCode;
  crypto?: CryptoPaymentInstructions;
}

export interface Payout {
  payout_id: string;
  /** BRL (integer centavos / 100). */
  amount_brl: number;
  /** `pending` until the PSP settles it; `paid` and `failed` are final. */
  status: 'pending' | 'paid' | 'failed';
  /** The business's registered payout account at the time of the payout. */
  destination: {
    /** The business's payout PIX key, masked: the API never shows it whole. */
    pix_key_masked: string;
  };
  /** The PIX endToEndId once paid. */
  external_id: string | null;
  /** Why the PSP refused or returned it, once failed. */
  failure_reason: string | null;
  created_at: string;
  updated_at: string;
}

export interface PayoutAccount {
  business_id: string;
  pix_key: string;
  pix_key_type: 'cpf' | 'cnpj' | 'email' | 'phone' | 'evp';
  holder_document: string;
  updated_at: string;
}

export interface PayoutAccountRequest {
  /** The key in its type's form: CPF 11 digits, CNPJ 14 digits, e-mail, phone `+55` and 10 or 11 digits, EVP a UUID. */
  pix_key: string;
  pix_key_type: 'cpf' | 'cnpj' | 'email' | 'phone' | 'evp';
  /** The key holder's CPF (11 digits) or CNPJ (14 digits); a CPF or CNPJ key is its holder's own. */
  holder_document: string;
}

export interface PayoutFailedEvent {
  /** Also the `webhook-id` header of its deliveries: dedupe on it. */
  id: string;
  type: 'payout.failed';
  created_at: string;
  business_id: string;
  data: Payout;
}

export interface PayoutPaidEvent {
  /** Also the `webhook-id` header of its deliveries: dedupe on it. */
  id: string;
  type: 'payout.paid';
  created_at: string;
  business_id: string;
  data: Payout;
}

export interface PixCode {
  /** PNG data URI of the QR code of the BR Code. */
  qr_code: string;
  /** The dynamic BR Code (PIX copy-and-paste code). */
  copia_e_cola: string;
}

export interface PixDueDatePaymentCreated {
  payment_id: string;
  /** BRL (integer centavos / 100). */
  amount: number;
  /** BRL (integer centavos / 100). */
  fee_brl: number;
  /** BRL (integer centavos / 100). */
  net_amount_brl: number;
  status: 'pending' | 'processing' | 'paid' | 'failed' | 'expired' | 'cancelled';
  customer_id: string;
  /** The due date (`pix.due.date`). */
  due_date: string;
  /** The last day it can be paid, in America/Sao_Paulo: it expires after it. */
  payable_until: string;
  pix: PixCode;
}

/** PIX: the payer's name and document as the PSP reported them; null where it did not. */
export interface PixPayer {
  name: string | null;
  /** CPF as `***.456.789-**`, CNPJ as `**.345.678/0001-**`; never the whole number. */
  document_masked: string | null;
}

export interface PixPaymentCreated {
  payment_id: string;
  /** BRL (integer centavos / 100). */
  amount: number;
  /** BRL (integer centavos / 100). */
  fee_brl: number;
  /** BRL (integer centavos / 100). */
  net_amount_brl: number;
  status: 'pending' | 'processing' | 'paid' | 'failed' | 'expired' | 'cancelled';
  customer_id: string | null;
  expires_at: string;
  pix: PixCode;
}

export interface Product {
  product_id: string;
  business_id: string;
  name: string;
  description: string | null;
  /** BRL (integer centavos / 100). */
  price: number;
  /** `inactive`: no new checkout may sell it (its existing checkouts are left as they are). */
  status: 'active' | 'inactive';
  /** Recurring: its checkouts sell a subscription of `price` every `interval` (Pix Automático: the buyer gives a name and CPF, and one QR code pays the first cycle and authorizes the rest). Null or absent: a one-off sale. */
  interval: 'weekly' | 'monthly' | 'quarterly' | 'semiannual' | 'yearly' | null;
  created_at: string;
}

export interface PspAccount {
  business_id: string;
  account_id: string;
  profile: 'bcb' | 'efi' | 'bb' | 'itau' | 'sicoob' | 'inter' | 'santander';
  base_url: string;
  oauth_token_url: string;
  /** The first characters of the client id, the rest hidden. */
  client_id_masked: string;
  pix_key: string;
  has_client_certificate: boolean;
  updated_at: string;
}

export interface PspAccountRemoved {
  removed: true;
}

export interface PspAccountRequest {
  /** How the PSP differs from the API Pix baseline (docs/psp-profiles.md). */
  profile: 'bcb' | 'efi' | 'bb' | 'itau' | 'sicoob' | 'inter' | 'santander';
  /** Where the PSP mounts API Pix v2, its version path included. */
  base_url: string;
  /** The PSP's OAuth token endpoint (client credentials). */
  oauth_token_url: string;
  /** The OAuth client id; answered masked. */
  client_id: string;
  /** The OAuth client secret: sealed at rest, never answered. Required but with a profile whose token is issued for the client id alone. */
  client_secret?: string | null;
  /** The business's receiving Pix key at its PSP. */
  pix_key: string;
  /** The client certificate, a base64 PKCS#12 file: sealed at rest, never answered. */
  certificate_p12?: string | null;
  /** The passphrase of certificate_p12: sealed at rest, never answered. */
  certificate_passphrase?: string | null;
  /** Banco do Brasil's developer application key (profile bb). */
  developer_app_key?: string | null;
  /** Inter's account number (profile inter). */
  account_number?: string | null;
}

export interface ReceivedFunds {
  funds_id: string;
  kind: 'late' | 'excess' | 'partial' | 'unmatched' | 'unreadable';
  rail: 'pix' | 'crypto';
  reference: string;
  /** Crypto: which transfer instruction of the transaction `reference` carried this money ("2", or "2.0" for an inner one); one transaction may hold several transfers kept for the payment, each its own record. Null for PIX, for what a crypto window collected and for a whole transaction (unreadable, excess). */
  instruction: string | null;
  /** BRL (integer centavos / 100). */
  amount_brl: number | null;
  amount_token: number | null;
  detected_at: string;
  /** `held` (not returned), `returning` (a refund in flight carries it, or the operator is sending it back through its rail), `returned` (by a refund that succeeded, by hand, or by the operator through the rail), `assigned` (the operator credited it to a business: never returned then). Money goes back once: by a refund, by hand or by the operator, never twice. Money one transfer instruction sent naming several payments is kept by each and goes back through one of them: the others' records then show that return. */
  status: 'held' | 'returning' | 'returned' | 'assigned';
  /** The refund (`ref_...`) that returns it, `manual` when returned by hand, `operator` when the operator sends it back through its rail, null while held. */
  returned_by: string | null;
  returned_at: string | null;
  /** What the platform holds the money at, in BRL: the PIX amount; tokens that arrived within their payment's window at the quote it locked, tokens that arrived outside it at `arrival_quote`. Credited to the business (returned by hand, assigned) as a payment of the rail would be: less the fee, pending until the settlement delay is over. Null when it was not valued (no quote could be had): it cannot be credited. */
  value_brl: number | null;
  /** Tokens that arrived outside their payment's window (late, after it was paid, in another token, naming several payments): the quote of their arrival that gave `value_brl`, never the quote the payment locked. Null for PIX and for tokens valued at their payment's own quote or not valued. */
  arrival_quote: {
    /** How many tokens one BRL bought at that quote. */
    token_per_brl: number;
    quoted_at: string;
  } | null;
}

export interface Reconciliation {
  id: string;
  /** `failed`: a rail could not be asked, nothing was compared (`failure_reason` says which). */
  status: 'completed' | 'failed';
  trigger: 'schedule' | 'operator';
  period_from: string;
  period_to: string;
  started_at: string;
  finished_at: string;
  failure_reason: string | null;
  /** The PSP account's balance when read. */
  psp_balance_brl: number | null;
  /** The `cash_psp` account at that moment. */
  books_cash_psp_brl: number | null;
  /** PIX received at the PSP in the period. */
  psp_received_brl: number | null;
  /** PIX sent (payouts) and returned (devoluções) at the PSP in the period. */
  psp_sent_brl: number | null;
  tokens: {
    token: 'usdc' | 'usdt' | 'eurc';
    wallet_base_units: string;
    books_base_units: string;
    decimals: number;
  }[];
  difference_count: number;
  pending_count: number;
  differences: ReconciliationItem[];
  /** Movements younger than the grace window the books have not posted yet: money in flight. */
  pending: ReconciliationItem[];
}

export interface ReconciliationItem {
  kind:
    | 'balance_mismatch'
    | 'received_not_in_books'
    | 'received_amount_mismatch'
    | 'return_not_in_books'
    | 'sent_not_in_books'
    | 'in_books_not_at_psp'
    | 'token_balance_mismatch';
  rail: 'pix' | 'solana';
  /** The rail's id of the movement (txid, endToEndId, devolução id, idEnvio) or the token. */
  reference: string | null;
  /** What the rail says (PIX); negative: money out. */
  rail_amount_brl: number | null;
  /** What the books say (PIX). */
  books_amount_brl: number | null;
  /** What the wallet holds (tokens). */
  rail_base_units: string | null;
  /** What the books hold (tokens). */
  books_base_units: string | null;
  occurred_at: string | null;
  detail: string;
}

export interface ReconciliationList {
  data: Reconciliation[];
  has_more: boolean;
}

export interface ReconciliationRequest {
  /** The period to look back to (at most 31 days); absent: the configured period. */
  from?: string;
}

export interface RedriveRequest {
  queue?:
    | 'api-gateway.commands'
    | 'api-gateway.events'
    | 'payment.commands'
    | 'payment.events'
    | 'pix-adapter.commands'
    | 'pix-adapter.events'
    | 'solana-watcher.commands'
    | 'solana-watcher.events'
    | 'checkout.commands'
    | 'checkout.events'
    | 'customer.commands'
    | 'customer.events'
    | 'webhook-dispatcher.commands'
    | 'webhook-dispatcher.events'
    | 'ledger.commands'
    | 'ledger.events';
}

export interface RedrivenMessages {
  queues: {
    queue: string;
    redriven: number;
  }[];
  total_redriven: number;
}

export interface Refund {
  refund_id: string;
  payment_id: string;
  /** BRL (integer centavos / 100). */
  amount_brl: number;
  status: 'pending' | 'succeeded' | 'failed';
  reason: string | null;
  failure_reason: string | null;
  /** The PIX devolução id or the Solana transaction signature. */
  external_id: string | null;
  /** The received funds (an overpayment's excess) this refund also returns to the payer besides `amount_brl`: the refund that completes the payment's refunds carries the excess still held. Null when none. */
  returned_funds_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface RefundFailedEvent {
  /** Also the `webhook-id` header of its deliveries: dedupe on it. */
  id: string;
  type: 'refund.failed';
  created_at: string;
  business_id: string;
  data: EventRefund;
}

export interface RefundSucceededEvent {
  /** Also the `webhook-id` header of its deliveries: dedupe on it. */
  id: string;
  type: 'refund.succeeded';
  created_at: string;
  business_id: string;
  data: EventRefund;
}

export interface ReturnHeldFundsRequest {
  /** Why the money goes back: the devolução's `descricao` at the PSP (PIX; never on chain). Sandbox: `simulate:fail` makes the PSP simulator or the local chain fail the return. */
  reason?: string | null;
}

export interface RollApiKeyRequest {
  /** How long the old key keeps working beside the new one: 86400 s (a day) unless given, 0 stops it now. */
  expires_in_seconds?: number;
}

export interface SimulatePaymentRequest {
  outcome: 'paid' | 'failed' | 'expired' | 'disputed' | 'dispute_won' | 'dispute_lost';
  amount?: number | null;
  paid_on?: string | null;
}

export interface SimulateSubscriptionRequest {
  outcome: 'authorize' | 'reject' | 'payer_cancel' | 'fail_next_cycle' | 'pay_next_cycle';
}

export interface SimulationAccepted {
  accepted: true;
}

export type StartCheckoutSessionRequest =
  | {
      method: 'pix';
      currency?: unknown;
      /** A recurring product's subscriber: the buyer's name (required there). */
      name?: string;
      /** A recurring product's subscriber: the buyer's CPF, check digits verified (required there). */
      document?: string;
    }
  | {
      method: 'crypto';
      currency: 'usdc' | 'usdt' | 'eurc' | 'USDC' | 'USDT' | 'EURC';
      /** A recurring product's subscriber: the buyer's name (required there). */
      name?: string;
      /** A recurring product's subscriber: the buyer's CPF, check digits verified (required there). */
      document?: string;
    };

export interface SubmitDisputeDefenceRequest {
  text: string;
}

export interface Subscription {
  subscription_id: string;
  customer_id: string;
  /** `pending_authorization` until the payer authorizes it in their bank app, `active` then, until `cancelled` or `expired` (an authorization nobody gave in time, or past `end_date`). */
  status: 'pending_authorization' | 'active' | 'cancelled' | 'expired';
  /** The fixed amount of each cycle; null when it varies. */
  amount_brl: number | null;
  /** With a varying amount, the least a cycle asks (what a cycle charges unless `next_cycle_amount_brl` says otherwise); null otherwise. */
  minimum_amount_brl: number | null;
  interval: 'weekly' | 'monthly' | 'quarterly' | 'semiannual' | 'yearly';
  /** The first cycle's due date (America/Sao_Paulo). */
  start_date: string;
  /** No cycle falls after it; null: until cancelled. */
  end_date: string | null;
  description: string | null;
  retry_policy: 'none' | 'three_in_seven_days';
  authorization: SubscriptionAuthorization;
  /** `qr_with_first_payment`: cycle 1, the payment the same QR code pays. */
  first_payment_id: string | null;
  next_cycle: number | null;
  next_due_date: string | null;
  /** With a varying amount, what the next cycle asks as you set it (`PATCH`); null: its minimum. Cleared once that cycle opens. */
  next_cycle_amount_brl: number | null;
  /** The subscription's today: São Paulo's; in the sandbox its own clock (`advance` moves it). */
  current_date: string;
  cancelled_by: 'merchant' | 'payer' | 'psp' | null;
  cancellation_reason: 'requested' | 'authorization_rejected' | null;
  metadata: string | null;
  ended_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface SubscriptionActivatedEvent {
  /** Also the `webhook-id` header of its deliveries: dedupe on it. */
  id: string;
  type: 'subscription.activated';
  created_at: string;
  business_id: string;
  data: Subscription;
}

export interface SubscriptionAuthorization {
  journey: 'push' | 'qr' | 'qr_with_first_payment';
  /** `qr`, `qr_with_first_payment`: the QR code to read. */
  qr_code: string | null;
  copia_e_cola: string | null;
  /** Until when the payer may authorize with it. */
  expires_at: string | null;
}

export interface SubscriptionCancelledEvent {
  /** Also the `webhook-id` header of its deliveries: dedupe on it. */
  id: string;
  type: 'subscription.cancelled';
  created_at: string;
  business_id: string;
  data: Subscription;
}

export interface SubscriptionCreatedEvent {
  /** Also the `webhook-id` header of its deliveries: dedupe on it. */
  id: string;
  type: 'subscription.created';
  created_at: string;
  business_id: string;
  data: Subscription;
}

export interface SubscriptionCycleRetry {
  subscription_id: string;
  customer_id: string;
  /** `pending_authorization` until the payer authorizes it in their bank app, `active` then, until `cancelled` or `expired` (an authorization nobody gave in time, or past `end_date`). */
  status: 'pending_authorization' | 'active' | 'cancelled' | 'expired';
  /** The fixed amount of each cycle; null when it varies. */
  amount_brl: number | null;
  /** With a varying amount, the least a cycle asks (what a cycle charges unless `next_cycle_amount_brl` says otherwise); null otherwise. */
  minimum_amount_brl: number | null;
  interval: 'weekly' | 'monthly' | 'quarterly' | 'semiannual' | 'yearly';
  /** The first cycle's due date (America/Sao_Paulo). */
  start_date: string;
  /** No cycle falls after it; null: until cancelled. */
  end_date: string | null;
  description: string | null;
  retry_policy: 'none' | 'three_in_seven_days';
  authorization: SubscriptionAuthorization;
  /** `qr_with_first_payment`: cycle 1, the payment the same QR code pays. */
  first_payment_id: string | null;
  next_cycle: number | null;
  next_due_date: string | null;
  /** With a varying amount, what the next cycle asks as you set it (`PATCH`); null: its minimum. Cleared once that cycle opens. */
  next_cycle_amount_brl: number | null;
  /** The subscription's today: São Paulo's; in the sandbox its own clock (`advance` moves it). */
  current_date: string;
  cancelled_by: 'merchant' | 'payer' | 'psp' | null;
  cancellation_reason: 'requested' | 'authorization_rejected' | null;
  metadata: string | null;
  ended_at: string | null;
  created_at: string;
  updated_at: string;
  retry: {
    payment_id: string;
    cycle: number;
    attempt: number;
    /** The payer's bank's reason (`AM04`: no funds). */
    reason_code: string | null;
    next_attempt_on: string;
  };
}

export interface SubscriptionCycleRetryScheduledEvent {
  /** Also the `webhook-id` header of its deliveries: dedupe on it. */
  id: string;
  type: 'subscription.cycle_retry_scheduled';
  created_at: string;
  business_id: string;
  data: SubscriptionCycleRetry;
}

export interface SubscriptionExpiredEvent {
  /** Also the `webhook-id` header of its deliveries: dedupe on it. */
  id: string;
  type: 'subscription.expired';
  created_at: string;
  business_id: string;
  data: Subscription;
}

export interface SubscriptionSimulationAccepted {
  accepted: true;
}

export interface UpdateCheckoutRequest {
  title?: string | null;
  return_url?: string;
  cancel_url?: string;
  status?: 'active' | 'inactive';
}

export interface UpdatePaymentRequest {
  amount?: number;
  /** Serialized JSON text with the caller's own data. */
  metadata?: string | null;
}

export interface UpdateProductRequest {
  name?: string;
  price?: number;
  description?: string | null;
  status?: 'active' | 'inactive';
}

export interface UpdateSubscriptionRequest {
  /** A varying subscription's next cycle amount, integer centavos, at least its `minimum_amount`; null: the minimum again. For that one cycle, and only before its send day (7 days before it is due). */
  next_cycle_amount: number | null;
}

export interface Webhook {
  webhook_id: string;
  business_id: string;
  url: string;
  events: (
    | 'payment.created'
    | 'payment.confirmed'
    | 'payment.expired'
    | 'payment.failed'
    | 'payment.cancelled'
    | 'refund.succeeded'
    | 'refund.failed'
    | 'payout.paid'
    | 'payout.failed'
    | 'dispute.created'
    | 'dispute.closed'
    | 'subscription.created'
    | 'subscription.activated'
    | 'subscription.cancelled'
    | 'subscription.expired'
    | 'subscription.cycle_retry_scheduled'
  )[];
  status: 'active' | 'inactive';
  created_at: string;
  updated_at: string;
}

export interface WebhookDeleted {
  deleted: true;
}

export interface WebhookDelivery {
  delivery_id: string;
  event_id: string;
  event_type: string;
  status: string;
  attempts: {
    attempted_at: string;
    status_code: number | null;
    latency_ms: number;
    error: string | null;
    response_body: string | null;
  }[];
  next_attempt_at: string | null;
  created_at: string;
}

export interface WebhookSecret {
  secret: string;
}

export interface WebhookTestData {
  webhook_id: string;
}

export interface WebhookTestEvent {
  /** Also the `webhook-id` header of its deliveries: dedupe on it. */
  id: string;
  type: 'webhook.test';
  created_at: string;
  business_id: string;
  data: WebhookTestData;
}

export interface WebhookTested {
  event_id: string;
  status_code: number | null;
  error: string | null;
}

export interface WebhookWithSecret {
  webhook_id: string;
  business_id: string;
  url: string;
  events: (
    | 'payment.created'
    | 'payment.confirmed'
    | 'payment.expired'
    | 'payment.failed'
    | 'payment.cancelled'
    | 'refund.succeeded'
    | 'refund.failed'
    | 'payout.paid'
    | 'payout.failed'
    | 'dispute.created'
    | 'dispute.closed'
    | 'subscription.created'
    | 'subscription.activated'
    | 'subscription.cancelled'
    | 'subscription.expired'
    | 'subscription.cycle_retry_scheduled'
  )[];
  status: 'active' | 'inactive';
  created_at: string;
  updated_at: string;
  secret: string;
}

/** The body a webhook endpoint receives, one per delivered event type. */
export type DeliveredEvent =
  | PaymentCreatedEvent
  | PaymentConfirmedEvent
  | PaymentExpiredEvent
  | PaymentFailedEvent
  | PaymentCancelledEvent
  | RefundSucceededEvent
  | RefundFailedEvent
  | PayoutPaidEvent
  | PayoutFailedEvent
  | DisputeCreatedEvent
  | DisputeClosedEvent
  | SubscriptionCreatedEvent
  | SubscriptionActivatedEvent
  | SubscriptionCancelledEvent
  | SubscriptionExpiredEvent
  | SubscriptionCycleRetryScheduledEvent
  | WebhookTestEvent;

/** Each JSON operation (public API, sandbox, operator API, hosted checkout) by its operation id: what its handler takes and answers. */
export interface OperationTypes {
  /** POST /v1/payments */
  createPayment: {
    body: CreatePaymentRequest;
    answer: PixPaymentCreated | PixDueDatePaymentCreated | CryptoPaymentCreated;
  };
  /** GET /v1/payments/{payment_id} */
  getPayment: {
    answer: PaymentDetails;
  };
  /** GET /v1/payments */
  listPayments: {
    query: {
      limit: number;
      starting_after?: string;
      status?: 'pending' | 'processing' | 'paid' | 'failed' | 'expired' | 'cancelled';
      method?: 'pix' | 'crypto';
      created_gte?: string;
      created_lt?: string;
      /** Only this subscription's cycles. */
      subscription_id?: string;
    };
    answer: {
      data: Payment[];
      has_more: boolean;
    };
  };
  /** PATCH /v1/payments/{payment_id} */
  updatePayment: {
    body: UpdatePaymentRequest;
    answer: PaymentUpdated;
  };
  /** POST /v1/payments/{payment_id}/cancel */
  cancelPayment: {
    answer: Payment;
  };
  /** GET /v1/payments/{payment_id}/received-funds */
  listReceivedFunds: {
    query: {
      limit: number;
      starting_after?: string;
    };
    answer: {
      data: ReceivedFunds[];
      has_more: boolean;
    };
  };
  /** POST /v1/payments/{payment_id}/received-funds/{funds_id}/return */
  returnReceivedFunds: {
    answer: ReceivedFunds;
  };
  /** POST /v1/payments/{payment_id}/refunds */
  createRefund: {
    body: CreateRefundRequest;
    answer: Refund;
  };
  /** GET /v1/refunds/{refund_id} */
  getRefund: {
    answer: Refund;
  };
  /** GET /v1/payments/{payment_id}/refunds */
  listRefunds: {
    query: {
      limit: number;
      starting_after?: string;
    };
    answer: {
      data: Refund[];
      has_more: boolean;
    };
  };
  /** GET /v1/disputes */
  listDisputes: {
    query: {
      limit: number;
      starting_after?: string;
    };
    answer: {
      data: Dispute[];
      has_more: boolean;
    };
  };
  /** GET /v1/disputes/{dispute_id} */
  getDispute: {
    answer: Dispute;
  };
  /** POST /v1/disputes/{dispute_id}/defence */
  submitDisputeDefence: {
    body: SubmitDisputeDefenceRequest;
    answer: Dispute;
  };
  /** POST /v1/subscriptions */
  createSubscription: {
    body: CreateSubscriptionRequest;
    answer: Subscription;
  };
  /** GET /v1/subscriptions */
  listSubscriptions: {
    query: {
      limit: number;
      starting_after?: string;
      status?: 'pending_authorization' | 'active' | 'cancelled' | 'expired';
      customer_id?: string;
    };
    answer: {
      data: Subscription[];
      has_more: boolean;
    };
  };
  /** GET /v1/subscriptions/{subscription_id} */
  getSubscription: {
    answer: Subscription;
  };
  /** PATCH /v1/subscriptions/{subscription_id} */
  updateSubscription: {
    body: UpdateSubscriptionRequest;
    answer: Subscription;
  };
  /** POST /v1/subscriptions/{subscription_id}/cancel */
  cancelSubscription: {
    answer: Subscription;
  };
  /** POST /v1/sandbox/payments/{payment_id}/simulate */
  simulatePayment: {
    body: SimulatePaymentRequest;
    answer: SimulationAccepted;
  };
  /** POST /v1/sandbox/subscriptions/{subscription_id}/simulate */
  simulateSubscription: {
    body: SimulateSubscriptionRequest;
    answer: SubscriptionSimulationAccepted;
  };
  /** POST /v1/sandbox/subscriptions/{subscription_id}/advance */
  advanceSubscriptionClock: {
    body: AdvanceSubscriptionClockRequest;
    answer: Subscription;
  };
  /** POST /v1/checkouts */
  createCheckout: {
    body: CreateCheckoutRequest;
    answer: Checkout;
  };
  /** GET /v1/checkouts/{checkout_id} */
  getCheckout: {
    answer: CheckoutWithSessions;
  };
  /** PATCH /v1/checkouts/{checkout_id} */
  updateCheckout: {
    body: UpdateCheckoutRequest;
    answer: Checkout;
  };
  /** GET /v1/checkouts */
  listCheckouts: {
    query: {
      limit: number;
      starting_after?: string;
    };
    answer: {
      data: Checkout[];
      has_more: boolean;
    };
  };
  /** GET /v1/checkouts/{checkout_id}/sessions */
  listCheckoutSessions: {
    query: {
      limit: number;
      starting_after?: string;
    };
    answer: {
      data: {
        session_id: string;
        checkout_id: string;
        payment_id: string;
        status: 'initiated' | 'paid' | 'expired' | 'failed' | 'cancelled';
        created_at: string;
      }[];
      has_more: boolean;
    };
  };
  /** POST /v1/products */
  createOwnProduct: {
    body: CreateOwnProductRequest;
    answer: Product;
  };
  /** GET /v1/products */
  listProducts: {
    query: {
      limit: number;
      starting_after?: string;
    };
    answer: {
      data: Product[];
      has_more: boolean;
    };
  };
  /** PATCH /v1/products/{product_id} */
  updateProduct: {
    body: UpdateProductRequest;
    answer: Product;
  };
  /** POST /v1/customers */
  createCustomer: {
    body: CreateCustomerRequest;
    answer: Customer;
  };
  /** GET /v1/customers/{customer_id} */
  getCustomer: {
    answer: Customer;
  };
  /** GET /v1/customers */
  listCustomers: {
    query: {
      limit: number;
      starting_after?: string;
      /** Only the customers with this e-mail address, compared as customers are stored (trimmed, its domain in lower case). */
      email?: string;
    };
    answer: {
      data: Customer[];
      has_more: boolean;
    };
  };
  /** POST /v1/webhook */
  createWebhook: {
    body: CreateWebhookRequest;
    answer: WebhookWithSecret;
  };
  /** GET /v1/webhook/{webhook_id} */
  getWebhook: {
    answer: Webhook;
  };
  /** GET /v1/webhook */
  listWebhooks: {
    query: {
      limit: number;
      starting_after?: string;
    };
    answer: {
      data: Webhook[];
      has_more: boolean;
    };
  };
  /** DELETE /v1/webhook/{webhook_id} */
  deleteWebhook: {
    answer: WebhookDeleted;
  };
  /** POST /v1/webhook/{webhook_id}/rotate-secret */
  rotateWebhookSecret: {
    answer: WebhookSecret;
  };
  /** GET /v1/webhook/{webhook_id}/deliveries */
  listWebhookDeliveries: {
    query: {
      limit: number;
      cursor?: string;
    };
    answer: {
      data: WebhookDelivery[];
      /** Pass as `cursor` for the next page; null on the last one. */
      next_cursor: string | null;
    };
  };
  /** POST /v1/webhook/{webhook_id}/deliveries/{delivery_id}/retry */
  retryWebhookDelivery: {
    answer: DeliveryRetried;
  };
  /** POST /v1/webhook/{webhook_id}/test */
  sendTestWebhook: {
    answer: WebhookTested;
  };
  /** GET /v1/events */
  listEvents: {
    query: {
      limit: number;
      starting_after?: string;
      type?:
        | 'payment.created'
        | 'payment.confirmed'
        | 'payment.expired'
        | 'payment.failed'
        | 'payment.cancelled'
        | 'refund.succeeded'
        | 'refund.failed'
        | 'payout.paid'
        | 'payout.failed'
        | 'dispute.created'
        | 'dispute.closed'
        | 'subscription.created'
        | 'subscription.activated'
        | 'subscription.cancelled'
        | 'subscription.expired'
        | 'subscription.cycle_retry_scheduled';
      /** Only this payment's events: its own and its refunds'. */
      payment_id?: string;
    };
    answer: {
      data: Event[];
      has_more: boolean;
    };
  };
  /** GET /v1/events/{event_id} */
  getEvent: {
    answer: Event;
  };
  /** GET /v1/balance */
  getBalance: {
    answer: Balance;
  };
  /** GET /v1/balance_transactions */
  listBalanceTransactions: {
    query: {
      limit: number;
      starting_after?: string;
      type?: 'payment' | 'refund' | 'payout' | 'dispute' | 'dispute_won' | 'adjustment';
      created_gte?: string;
      created_lt?: string;
    };
    answer: {
      data: BalanceTransaction[];
      has_more: boolean;
    };
  };
  /** GET /v1/statements/{month} */
  getStatement: {
    answer: undefined;
  };
  /** POST /v1/payouts */
  createPayout: {
    body: CreatePayoutRequest;
    answer: Payout;
  };
  /** GET /v1/payouts/{payout_id} */
  getPayout: {
    answer: Payout;
  };
  /** GET /v1/payouts */
  listPayouts: {
    query: {
      limit: number;
      starting_after?: string;
    };
    answer: {
      data: Payout[];
      has_more: boolean;
    };
  };
  /** POST /admin/v1/businesses */
  createBusiness: {
    body: CreateBusinessRequest;
    answer: BusinessCreated;
  };
  /** GET /admin/v1/businesses */
  listBusinesses: {
    query: {
      limit: number;
      starting_after?: string;
    };
    answer: BusinessList;
  };
  /** GET /admin/v1/businesses/{business_id} */
  getBusiness: {
    answer: Business;
  };
  /** POST /admin/v1/businesses/{business_id}/api-keys */
  issueApiKey: {
    body: IssueApiKeyRequest;
    answer: ApiKeyIssued;
  };
  /** POST /admin/v1/api-keys/{key_prefix}/roll */
  rollApiKey: {
    body: RollApiKeyRequest;
    answer: ApiKeyRolled;
  };
  /** PUT /admin/v1/api-keys/{key_prefix}/purpose */
  setApiKeyPurpose: {
    body: ApiKeyPurposeRequest;
    answer: ApiKeyPurpose;
  };
  /** DELETE /admin/v1/api-keys/{key_prefix} */
  revokeApiKey: {
    answer: ApiKeyRevoked;
  };
  /** PUT /admin/v1/businesses/{business_id}/fee-rules/{method} */
  setFeeRule: {
    body: FeeRuleRequest;
    answer: FeeRule;
  };
  /** PUT /admin/v1/businesses/{business_id}/payout-account */
  setPayoutAccount: {
    body: PayoutAccountRequest;
    answer: PayoutAccount;
  };
  /** PUT /admin/v1/businesses/{business_id}/psp-account */
  setPspAccount: {
    body: PspAccountRequest;
    answer: PspAccount;
  };
  /** GET /admin/v1/businesses/{business_id}/psp-account */
  getPspAccount: {
    answer: PspAccount;
  };
  /** DELETE /admin/v1/businesses/{business_id}/psp-account */
  removePspAccount: {
    answer: PspAccountRemoved;
  };
  /** POST /admin/v1/businesses/{business_id}/products */
  createProduct: {
    body: CreateProductRequest;
    answer: OperatorProduct;
  };
  /** GET /admin/v1/received-funds */
  listAllReceivedFunds: {
    query: {
      kind?: 'late' | 'excess' | 'partial' | 'unmatched' | 'unreadable';
      status?: 'held' | 'returning' | 'returned' | 'assigned';
      limit: number;
      starting_after?: string;
    };
    answer: {
      data: OperatorReceivedFunds[];
      has_more: boolean;
    };
  };
  /** GET /admin/v1/parked */
  listParkedMessages: {
    answer: ParkedMessages;
  };
  /** POST /admin/v1/parked/redrive */
  redriveParkedMessages: {
    body: RedriveRequest;
    answer: RedrivenMessages;
  };
  /** POST /admin/v1/received-funds/{funds_id}/assign */
  assignReceivedFunds: {
    body: AssignReceivedFundsRequest;
    answer: OperatorReceivedFunds;
  };
  /** POST /admin/v1/received-funds/{funds_id}/return */
  returnHeldFunds: {
    body: ReturnHeldFundsRequest;
    answer: OperatorReceivedFunds;
  };
  /** POST /admin/v1/reconciliations */
  runReconciliation: {
    body: ReconciliationRequest;
    answer: Reconciliation;
  };
  /** GET /admin/v1/reconciliations/{reconciliation_id} */
  getReconciliation: {
    answer: Reconciliation;
  };
  /** GET /admin/v1/reconciliations */
  listReconciliations: {
    query: {
      limit: number;
      starting_after?: string;
    };
    answer: ReconciliationList;
  };
  /** POST /admin/v1/adjustments */
  createAdjustment: {
    body: AdjustmentRequest;
    answer: Adjustment;
  };
  /** GET /admin/v1/adjustments */
  listAdjustments: {
    query: {
      business_id?: string;
      limit: number;
      starting_after?: string;
    };
    answer: AdjustmentList;
  };
  /** POST /c/{slug}/sessions */
  startCheckoutSession: {
    body: StartCheckoutSessionRequest;
    answer: CheckoutSessionStarted;
  };
  /** GET /c/{slug}/sessions/{session_id} */
  getCheckoutSessionStatus: {
    answer: CheckoutSessionStatus;
  };
  /** POST /c/{slug}/sessions/{session_id}/cancel */
  cancelCheckoutSession: {
    answer: CheckoutSessionStatus;
  };
}
