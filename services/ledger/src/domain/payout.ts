import {
  MIN_PAYOUT_CENTAVOS,
  centavosToBrl,
  type PayoutDestination,
  type PayoutRecord,
  type PayoutStatus,
  type PixKeyType,
  type PixPayoutSettled,
} from '@gateway/contracts';

/** A payout as the ledger stores it (the entity has this shape). */
export interface StoredPayout {
  id: string;
  businessId: string;
  amountCentavos: number;
  status: PayoutStatus;
  pixKey: string;
  pixKeyType: PixKeyType;
  holderDocument: string;
  endToEndId: string | null;
  failureReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

const hidden = (length: number): string => '*'.repeat(Math.max(0, length));

/**
 * A PIX key as the merchant API shows it, never whole: a CPF keeps its middle six digits (`***.456.789-**`, as the
 * payer's document is shown), a CNPJ its eight after the first two and its branch (`**.345.678/0001-**`), an e-mail
 * its first character and its domain (`f***@example.com`), a phone its country code and last four digits
 * (`+55*******4321`), an EVP its first and last four characters.
 */
export function maskPixKey(type: PixKeyType, key: string): string {
  switch (type) {
    case 'cpf':
      return `***.${key.slice(3, 6)}.${key.slice(6, 9)}-**`;
    case 'cnpj':
      return `**.${key.slice(2, 5)}.${key.slice(5, 8)}/${key.slice(8, 12)}-**`;
    case 'email': {
      const at = key.lastIndexOf('@');
      return `${key.slice(0, 1)}***${key.slice(at)}`;
    }
    case 'phone':
      return `${key.slice(0, 3)}${hidden(key.length - 7)}${key.slice(-4)}`;
    case 'evp':
      return `${key.slice(0, 4)}${key.slice(4, -4).replace(/[0-9a-z]/gi, '*')}${key.slice(-4)}`;
  }
}

export function toPayoutRecord(payout: StoredPayout): PayoutRecord {
  return {
    payout_id: payout.id,
    business_id: payout.businessId,
    amount_centavos: payout.amountCentavos,
    status: payout.status,
    destination: { pix_key_masked: maskPixKey(payout.pixKeyType, payout.pixKey) },
    external_id: payout.endToEndId,
    failure_reason: payout.failureReason,
    created_at: payout.createdAt.toISOString(),
    updated_at: payout.updatedAt.toISOString(),
  };
}

export type PayoutDecision =
  | { ok: true; amountCentavos: number }
  | { ok: false; code: 'NO_PAYOUT_ACCOUNT' | 'INVALID_AMOUNT' | 'INSUFFICIENT_BALANCE'; message: string };

const brl = (centavos: number): string =>
  centavosToBrl(centavos).toLocaleString('pt-BR', { style: 'currency', currency: 'BRL' });

/**
 * How much a payout takes, or why none: an amount below the minimum is INVALID_AMOUNT, a business without a payout
 * account NO_PAYOUT_ACCOUNT, more than available (or, without an amount, available below the minimum)
 * INSUFFICIENT_BALANCE. `available` is null for a business no money has moved for yet.
 */
export function decidePayout(input: {
  requestedCentavos: number | null;
  account: PayoutDestination | null;
  availableCentavos: number | null;
}): PayoutDecision {
  const { requestedCentavos } = input;
  if (requestedCentavos !== null && requestedCentavos < MIN_PAYOUT_CENTAVOS)
    return {
      ok: false,
      code: 'INVALID_AMOUNT',
      message: `O valor mínimo de um saque é ${brl(MIN_PAYOUT_CENTAVOS)}.`,
    };
  if (input.account === null)
    return {
      ok: false,
      code: 'NO_PAYOUT_ACCOUNT',
      message: 'Nenhuma conta de saque cadastrada para esta empresa.',
    };
  const available = Math.max(0, input.availableCentavos ?? 0);
  const amount = requestedCentavos ?? available;
  if (amount > available || amount < MIN_PAYOUT_CENTAVOS)
    return {
      ok: false,
      code: 'INSUFFICIENT_BALANCE',
      message:
        requestedCentavos === null
          ? `O saldo disponível (${brl(available)}) é menor que o mínimo de um saque (${brl(MIN_PAYOUT_CENTAVOS)}).`
          : `O saldo disponível (${brl(available)}) não cobre o saque de ${brl(amount)}.`,
    };
  return { ok: true, amountCentavos: amount };
}

/**
 * What a PSP outcome does to a payout: a pending one settles with it; the same outcome again (a redelivery, the
 * adapter reporting twice) changes nothing; another outcome for a final payout contradicts it and changes nothing
 * either (the money already moved one way: an operator looks at it).
 */
export function settledPayoutOutcome(
  status: PayoutStatus,
  settled: Pick<PixPayoutSettled, 'outcome'>,
): 'settle' | 'already_settled' | 'contradicts' {
  if (status === 'pending') return 'settle';
  return status === settled.outcome ? 'already_settled' : 'contradicts';
}
