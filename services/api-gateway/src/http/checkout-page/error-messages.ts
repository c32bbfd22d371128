const FALLBACK_MESSAGE = 'Algo deu errado ao iniciar o pagamento. Tente novamente.';
const RELOAD_MESSAGE = 'Não foi possível iniciar o pagamento. Recarregue a página e tente novamente.';

const MESSAGES: ReadonlyMap<string, string> = new Map([
  ['NO_FEE_RULE', 'Este método de pagamento ainda não está disponível para esta loja.'],
  ['UNSUPPORTED_PAYMENT_METHOD', 'Este método de pagamento não é aceito nesta loja.'],
  ['NOT_FOUND', 'Este checkout não existe ou não está mais disponível.'],
  ['RATE_LIMITED', 'Muitas tentativas em pouco tempo. Aguarde alguns segundos e tente novamente.'],
  ['SERVICE_UNAVAILABLE', 'O serviço está temporariamente indisponível. Tente novamente em instantes.'],
  ['INVALID_JSON', RELOAD_MESSAGE],
  ['MISSING_FIELDS', RELOAD_MESSAGE],
  ['INVALID_FIELDS', RELOAD_MESSAGE],
]);

/** The buyer-facing Portuguese text (plain text, not HTML) for an error code returned to the hosted page. */
export function renderErrorMessage(code: string): string {
  return MESSAGES.get(code) ?? FALLBACK_MESSAGE;
}
