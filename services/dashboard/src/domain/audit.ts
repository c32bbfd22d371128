/** Every action the dashboard records in the audit log, with how the Auditoria page words it. */
export const auditActionLabels = {
  sign_up: 'Cadastro da empresa',
  sign_in: 'Entrada no painel',
  sign_in_failed: 'Tentativa de entrada recusada',
  sign_out: 'Saída do painel',
  email_verification_sent: 'E-mail de verificação enviado',
  email_verified: 'E-mail verificado',
  password_reset_requested: 'Redefinição de senha pedida',
  password_reset: 'Senha redefinida',
  invitation_sent: 'Convite enviado',
  invitation_accepted: 'Convite aceito',
  invitation_revoked: 'Convite revogado',
  member_role_changed: 'Papel alterado',
  member_removed: 'Pessoa removida',
  api_key_created: 'Chave de API criada',
  api_key_rolled: 'Chave de API trocada',
  api_key_revoked: 'Chave de API revogada',
  refund_requested: 'Reembolso pedido',
  payment_simulated: 'Pagamento simulado (sandbox)',
  payment_cancelled: 'Pagamento cancelado',
  subscription_cancelled: 'Assinatura cancelada',
  webhook_created: 'Endpoint de webhook criado',
  webhook_deleted: 'Endpoint de webhook excluído',
  webhook_secret_rotated: 'Segredo de webhook trocado',
  webhook_test_sent: 'Evento de teste de webhook enviado',
  webhook_delivery_resent: 'Entrega de webhook reenviada',
  product_created: 'Produto criado',
  product_changed: 'Produto alterado',
  product_deactivated: 'Produto desativado',
  product_reactivated: 'Produto reativado',
  checkout_created: 'Checkout criado',
  checkout_changed: 'Checkout alterado',
  checkout_deactivated: 'Checkout desativado',
  checkout_reactivated: 'Checkout reativado',
  customer_created: 'Cliente criado',
  second_factor_enabled: 'Verificação em duas etapas ativada',
  payout_account_changed: 'Conta de saque alterada',
  payout_requested: 'Saque solicitado',
  operator_invited: 'Operador convidado',
  operator_invitation_accepted: 'Convite de operador aceito',
  fee_rule_changed: 'Regra de taxa alterada',
  parked_messages_redriven: 'Mensagens estacionadas reenviadas',
  reconciliation_run: 'Conciliação executada',
  business_time_zone_changed: 'Fuso horário da empresa alterado',
} as const;

export type AuditAction = keyof typeof auditActionLabels;

/** Where a request came from, as the audit log keeps it. */
export interface RequestOrigin {
  clientAddress: string | null;
  userAgent: string | null;
}

/** A user agent is kept up to this many characters (a header can be long; the log is for people to read). */
export const USER_AGENT_MAX_LENGTH = 300;

/**
 * The origin of a request from its client address and User-Agent header, bounded. An IPv4 address seen on a dual-stack
 * socket (`::ffff:203.0.113.7`) is kept as the IPv4 address it is.
 */
export function requestOrigin(
  clientAddress: string | undefined,
  userAgent: string | undefined,
): RequestOrigin {
  return {
    clientAddress: clientAddress?.replace(/^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i, '$1') ?? null,
    userAgent: userAgent ? userAgent.slice(0, USER_AGENT_MAX_LENGTH) : null,
  };
}
