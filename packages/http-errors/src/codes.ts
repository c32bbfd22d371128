import type { ErrorCode } from '@gateway/contracts';

export { isErrorCode, type ErrorCode } from '@gateway/contracts';

/** Every public error code with its HTTP status and default Portuguese message (docs/api.md#errors). */
export const errorCatalog = {
  UNAUTHORIZED: { status: 401, message: 'Chave de API ausente ou inválida.' },
  FORBIDDEN: { status: 403, message: 'Você não tem permissão para acessar este recurso.' },
  NOT_FOUND: { status: 404, message: 'Recurso não encontrado.' },
  INVALID_JSON: { status: 400, message: 'O corpo da requisição não é um JSON válido.' },
  MISSING_FIELDS: { status: 422, message: 'Campos obrigatórios ausentes.' },
  INVALID_FIELDS: { status: 422, message: 'Campos inválidos.' },
  INVALID_AMOUNT: { status: 422, message: 'O valor está fora dos limites permitidos.' },
  UNSUPPORTED_PAYMENT_METHOD: { status: 422, message: 'Método de pagamento não suportado.' },
  NO_FEE_RULE: { status: 422, message: 'Não há regra de tarifa configurada para este método de pagamento.' },
  INVALID_STATUS: { status: 422, message: 'Operação não permitida no status atual do pagamento.' },
  REFUND_NOT_ALLOWED: {
    status: 422,
    message: 'Este pagamento não pode mais ser devolvido: o prazo de 90 dias do Pix já passou.',
  },
  INSUFFICIENT_BALANCE: {
    status: 422,
    message: 'Saldo insuficiente para esta operação.',
  },
  NO_PAYOUT_ACCOUNT: {
    status: 422,
    message: 'Nenhuma conta Pix de saque está cadastrada para esta empresa.',
  },
  DEFENCE_NOT_SUPPORTED: {
    status: 422,
    message: 'O provedor PIX desta disputa não recebe defesa pela API.',
  },
  CUSTOMER_DOCUMENT_REQUIRED: {
    status: 422,
    message:
      'Uma cobrança com vencimento exige um cliente com nome e CPF ou CNPJ válido (o devedor da cobrança).',
  },
  DUE_DATE_NOT_SUPPORTED: {
    status: 422,
    message: 'O provedor PIX desta conta não abre cobranças com vencimento (cobv) pela API.',
  },
  AUTOMATIC_PIX_NOT_SUPPORTED: {
    status: 422,
    message: 'O provedor PIX desta conta não oferece Pix Automático (recorrências) pela API.',
  },
  IDEMPOTENCY_CONFLICT: {
    status: 409,
    message: 'A chave de idempotência já foi usada com um corpo de requisição diferente.',
  },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'O corpo da requisição excede o limite de 64 KiB.' },
  RATE_LIMITED: { status: 429, message: 'Limite de requisições excedido. Tente novamente em instantes.' },
  SERVICE_UNAVAILABLE: { status: 503, message: 'Serviço temporariamente indisponível. Tente novamente.' },
  INTERNAL_ERROR: { status: 500, message: 'Erro interno do servidor.' },
} as const satisfies Record<ErrorCode, { status: number; message: string }>;

/**
 * What a 503 tells the client to wait before trying again (`Retry-After`, seconds): the outages it reports (a
 * dependency restarting, a service not answering in time) usually pass within seconds.
 */
export const SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

/** The contract's error body. */
export interface ErrorBody {
  error: { code: ErrorCode; message: string };
}
