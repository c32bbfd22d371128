/** `pix.payout.settled.v1` carries at most this much of a failure's reason. */
export const MAX_PAYOUT_FAILURE_REASON = 500;

/** The PSP's refusals of a send, each in the words a business reads on its failed payout. */
const REFUSALS: Record<string, string> = {
  insufficient_balance: 'saldo insuficiente na conta da plataforma',
  invalid_key: 'chave Pix de destino inválida',
  key_holder_mismatch: 'a chave Pix não pertence ao documento do titular cadastrado',
  denied: 'pagamento negado pelo PSP',
  account_blocked: 'documento bloqueado',
  invalid_request: 'requisição recusada',
};

function bounded(text: string): string {
  return text.slice(0, MAX_PAYOUT_FAILURE_REASON);
}

/** Why a send the PSP refused at once (nothing left the account) failed: what, then the PSP's own words. */
export function refusedPayoutReason(reason: string, pspDetail: string): string {
  const what = REFUSALS[reason] ?? REFUSALS.invalid_request!;
  return bounded(`O PSP recusou o envio (${what}): ${pspDetail}`);
}

/**
 * Why a send the PSP took ended NAO_REALIZADO: the ISO 20022 reason code, who refused it and why, as the PSP's
 * callback told it; a read alone does not tell it.
 */
export function unmadePayoutReason(failure?: { code: string; origin: string; reason: string }): string {
  if (failure === undefined) return 'O envio não foi realizado pelo PSP (motivo não informado).';
  const who = [failure.code, failure.origin].filter((part) => part !== '').join(', ');
  return bounded(`O envio não foi realizado (${who}): ${failure.reason || 'sem motivo informado'}`);
}

/**
 * How long a payout waits before its next attempt after `attempts` that did not go through: doubling from
 * `firstSeconds`, never longer than `maxSeconds`.
 */
export function payoutRetryDelaySeconds(attempts: number, firstSeconds: number, maxSeconds: number): number {
  const doublings = Math.min(Math.max(attempts - 1, 0), 30);
  return Math.min(firstSeconds * 2 ** doublings, maxSeconds);
}
