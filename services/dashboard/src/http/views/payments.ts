import type { Payment, PaymentDetails, ReceivedFunds, Refund } from '@gateway/sdk';
import type { TimelineEntry } from '../../application/payment-timeline';
import { formatBrl, formatDateTime, formatDay } from '../../domain/format';
import { alert, appPage, csrfField, statusFilter, type Viewer } from './layout';
import { html, type Markup } from './html';
import { dataTable } from './table';

export const paymentStatusLabels: Record<Payment['status'], string> = {
  pending: 'Pendente',
  processing: 'Em processamento',
  paid: 'Pago',
  failed: 'Falhou',
  expired: 'Expirado',
  cancelled: 'Cancelado',
};

export const methodLabels: Record<Payment['method'], string> = { pix: 'PIX', crypto: 'Cripto' };

const refundStatusLabels: Record<Refund['status'], string> = {
  pending: 'Pendente',
  succeeded: 'Concluído',
  failed: 'Falhou',
};

export const eventLabels: Record<TimelineEntry['type'], string> = {
  'payment.created': 'Pagamento criado',
  'payment.confirmed': 'Pagamento confirmado',
  'payment.expired': 'Pagamento expirado',
  'payment.failed': 'Pagamento falhou',
  'payment.cancelled': 'Pagamento cancelado',
  'refund.succeeded': 'Reembolso concluído',
  'refund.failed': 'Reembolso falhou',
  'payout.paid': 'Saque pago',
  'payout.failed': 'Saque falhou',
  'dispute.created': 'Disputa (MED) aberta',
  'dispute.closed': 'Disputa (MED) encerrada',
  'subscription.created': 'Assinatura criada',
  'subscription.activated': 'Assinatura autorizada',
  'subscription.cancelled': 'Assinatura cancelada',
  'subscription.expired': 'Assinatura expirada',
  'subscription.cycle_retry_scheduled': 'Nova tentativa de débito agendada',
};

/**
 * What was paid: the amount, or for a charge with a due date paid with a fine, interest, a reduction or a discount,
 * `amount_paid` (what refunds, the fee and the net are on).
 */
export function paidAmount(payment: Pick<Payment, 'amount_brl' | 'amount_paid'>): number {
  return payment.amount_paid ?? payment.amount_brl;
}

/** The status a person reads: a paid payment refunded in whole or in part (of what was paid) says so. */
export function paymentStatusText(
  payment: Pick<Payment, 'status' | 'amount_brl' | 'amount_paid' | 'refunded_amount_brl'>,
): string {
  if (payment.status === 'paid' && payment.refunded_amount_brl > 0)
    return payment.refunded_amount_brl >= paidAmount(payment) ? 'Reembolsado' : 'Reembolsado em parte';
  return paymentStatusLabels[payment.status];
}

/** What a due-date charge's amount paid is made of, in the order API Pix adds them. */
function amountPartsText(parts: NonNullable<Payment['amount_parts']>): string {
  return [
    `original ${formatBrl(parts.original)}`,
    `multa ${formatBrl(parts.fine)}`,
    `juros ${formatBrl(parts.interest)}`,
    `abatimento ${formatBrl(parts.reduction)}`,
    `desconto ${formatBrl(parts.discount)}`,
  ].join(' · ');
}

/** The list's filters: a status, a method, and the days (the business's) from and to, both included. */
export interface PaymentFilters {
  status?: Payment['status'];
  method?: Payment['method'];
  /** `YYYY-MM-DD`. */
  from?: string;
  /** `YYYY-MM-DD`. */
  to?: string;
}

export function paymentsPage(
  viewer: Viewer,
  options: {
    payments: Payment[];
    filters: PaymentFilters;
    search?: string;
    nextCursor?: string;
    timeZone: string;
    error?: string;
  },
): Markup {
  const { filters } = options;
  const nextQuery = new URLSearchParams({
    ...(filters.status ? { status: filters.status } : {}),
    ...(filters.method ? { metodo: filters.method } : {}),
    ...(filters.from ? { de: filters.from } : {}),
    ...(filters.to ? { ate: filters.to } : {}),
    ...(options.nextCursor ? { depois: options.nextCursor } : {}),
  });
  return appPage(
    viewer,
    '/pagamentos',
    'Pagamentos',
    html`${alert('error', options.error)}
      <form method="get" action="/pagamentos" class="filters" role="search">
        ${statusFilter(paymentStatusLabels, filters.status)}
        <div class="field">
          <label for="metodo">Método</label>
          <select id="metodo" name="metodo">
            <option value="">Todos</option>
            ${Object.entries(methodLabels).map(
              ([value, label]) =>
                html`<option value=${value} selected=${filters.method === value}>${label}</option>`,
            )}
          </select>
        </div>
        <div class="field">
          <label for="de">Criados de</label>
          <input id="de" name="de" type="date" value=${filters.from} />
        </div>
        <div class="field">
          <label for="ate">até</label>
          <input id="ate" name="ate" type="date" value=${filters.to} />
        </div>
        <div class="field">
          <label for="busca">Buscar por id</label>
          <input id="busca" name="q" type="search" value=${options.search} placeholder="pay_..." />
        </div>
        <button type="submit">Filtrar</button>
      </form>
      ${dataTable({
        caption: 'Pagamentos, do mais novo ao mais antigo',
        empty: 'Nenhum pagamento encontrado.',
        rows: options.payments,
        columns: [
          {
            header: 'Pagamento',
            cell: (payment) =>
              html`<a href=${`/pagamentos/${encodeURIComponent(payment.payment_id)}`}
                ><code>${payment.payment_id}</code></a
              >`,
          },
          { header: 'Valor', amount: true, cell: (payment) => formatBrl(payment.amount_brl) },
          { header: 'Método', cell: (payment) => methodLabels[payment.method] },
          {
            header: 'Situação',
            cell: (payment) =>
              html`<span class=${`status status-${payment.status}`}>${paymentStatusText(payment)}</span>`,
          },
          { header: 'Criado em', cell: (payment) => formatDateTime(payment.created_at, options.timeZone) },
        ],
      })}
      ${options.nextCursor ? html`<p><a href=${`/pagamentos?${nextQuery.toString()}`}>Próxima página</a></p>` : null}`,
  );
}

/** Why money is kept apart from its payment, in the merchant's words. */
const receivedFundsKindLabels: Record<ReceivedFunds['kind'], string> = {
  late: 'Depois do prazo',
  excess: 'Valor a mais',
  partial: 'Valor a menos',
  unmatched: 'Não corresponde',
  unreadable: 'Não identificado',
};

const receivedFundsStatusLabels: Record<ReceivedFunds['status'], string> = {
  held: 'Retido',
  returning: 'Em devolução',
  returned: 'Devolvido',
  assigned: 'Creditado',
};

export function paymentPage(
  viewer: Viewer,
  options: {
    payment: PaymentDetails;
    refunds: Refund[];
    receivedFunds: ReceivedFunds[];
    timeline: TimelineEntry[];
    timeZone: string;
    canRefund: boolean;
    canCancel: boolean;
    /** Sandbox, and a person who may write payments: "Simular pagamento". */
    canSimulate: boolean;
    /** The refund form's idempotency key. */
    formKey: string;
    notice?: string;
    error?: string;
  },
): Markup {
  const { payment, timeZone } = options;
  const refundable = Math.round((paidAmount(payment) - payment.refunded_amount_brl) * 100) / 100;
  const row = (label: string, value: unknown) =>
    html`<div>
      <dt>${label}</dt>
      <dd>${value}</dd>
    </div>`;
  return appPage(
    viewer,
    '/pagamentos',
    `Pagamento ${payment.payment_id}`,
    html`${alert('error', options.error)} ${alert('notice', options.notice)}
      <p><a href="/pagamentos">Voltar aos pagamentos</a></p>
      <dl class="details">
        ${row('Situação', html`<span class=${`status status-${payment.status}`} data-testid="situacao">${paymentStatusText(payment)}</span>`)}
        ${row('Valor', formatBrl(payment.amount_brl))}
        ${payment.subscription_id ? row('Assinatura', html`<a href=${`/assinaturas/${encodeURIComponent(payment.subscription_id)}`} data-testid="assinatura">Assinatura <code>${payment.subscription_id}</code>, ciclo ${payment.cycle}</a>`) : null}
        ${payment.due_date ? row('Vencimento', html`<span data-testid="vencimento">${formatDay(payment.due_date)}</span>`) : null}
        ${payment.payable_until ? row('Pagável até', html`<span data-testid="pagavel-ate">${formatDay(payment.payable_until)}</span>`) : null}
        ${payment.amount_paid != null ? row('Valor pago', html`<span data-testid="valor-pago">${formatBrl(payment.amount_paid)}</span>`) : null}
        ${payment.amount_parts ? row('Composição', html`<span data-testid="composicao">${amountPartsText(payment.amount_parts)}</span>`) : null}
        ${row('Tarifa', html`<span data-testid="tarifa">${formatBrl(payment.fee_brl)}</span>`)}
        ${row('Líquido', html`<span data-testid="liquido">${formatBrl(payment.net_amount_brl)}</span>`)}
        ${row('Reembolsado', formatBrl(payment.refunded_amount_brl))}
        ${row('Método', methodLabels[payment.method])} ${row('Cliente', payment.customer_id ?? '—')}
        ${row('Criado em', formatDateTime(payment.created_at, timeZone))}
        ${row('Atualizado em', formatDateTime(payment.updated_at, timeZone))}
      </dl>
      ${
        options.canRefund && payment.status === 'paid' && refundable > 0
          ? html`<form
              method="post"
              action=${`/pagamentos/${encodeURIComponent(payment.payment_id)}/reembolsar`}
              class="refund"
            >
              ${csrfField(viewer.csrfToken)}
              <input type="hidden" name="idempotency_key" value=${options.formKey} />
              <h2>Reembolso</h2>
              <div class="field">
                <label for="valor">Valor do reembolso (até ${formatBrl(refundable)})</label>
                <input
                  id="valor"
                  name="amount"
                  inputmode="decimal"
                  required
                  value=${formatBrl(refundable).slice(3)}
                />
              </div>
              <div class="field">
                <label for="motivo">Motivo (opcional)</label>
                <input id="motivo" name="reason" maxlength="140" />
              </div>
              <button type="submit" class="danger">Reembolsar</button>
            </form>`
          : null
      }
      ${
        options.canSimulate && (payment.status === 'pending' || payment.status === 'processing')
          ? html`<form
              method="post"
              action=${`/pagamentos/${encodeURIComponent(payment.payment_id)}/simular`}
              class="simulate"
            >
              ${csrfField(viewer.csrfToken)}
              <h2>Simulação (sandbox)</h2>
              <p>Faz o pagamento acontecer como o meio de pagamento faria, sem dinheiro de verdade.</p>
              <div class="field">
                <label for="resultado">Resultado</label>
                <select id="resultado" name="outcome">
                  <option value="paid">Pago</option>
                  <option value="failed">Falhou</option>
                  <option value="expired">Expirou</option>
                </select>
              </div>
              <button type="submit">Simular pagamento</button>
            </form>`
          : null
      }
      ${
        options.canCancel && (payment.status === 'pending' || payment.status === 'processing')
          ? html`<form
              method="post"
              action=${`/pagamentos/${encodeURIComponent(payment.payment_id)}/cancelar`}
              class="cancel"
            >
              ${csrfField(viewer.csrfToken)}
              <h2>Cancelamento</h2>
              <p>O pagamento deixa de poder ser pago; um valor que chegue depois fica registrado.</p>
              <button type="submit" class="danger">Cancelar</button>
            </form>`
          : null
      }
      <h2>Linha do tempo</h2>
      ${
        options.timeline.length === 0
          ? html`<p>Nenhum evento recente deste pagamento.</p>`
          : html`<ol class="timeline">
              ${options.timeline.map(
                (entry) =>
                  html`<li>
                    <time datetime=${entry.at}>${formatDateTime(entry.at, timeZone)}</time>${' — '}${
                      eventLabels[entry.type]
                    }
                  </li>`,
              )}
            </ol>`
      }
      <h2>Reembolsos</h2>
      ${dataTable({
        caption: 'Reembolsos deste pagamento',
        empty: 'Nenhum reembolso.',
        rows: options.refunds,
        columns: [
          { header: 'Reembolso', cell: (refund) => html`<code>${refund.refund_id}</code>` },
          { header: 'Valor', amount: true, cell: (refund) => formatBrl(refund.amount_brl) },
          { header: 'Situação', cell: (refund) => refundStatusLabels[refund.status] },
          { header: 'Motivo', cell: (refund) => refund.reason ?? '—' },
        ],
      })}
      <h2>Valores recebidos fora do pagamento</h2>
      <p>
        Dinheiro que chegou para este pagamento além do valor combinado: depois do prazo, a mais, a menos ou
        em outro token. Fica retido até ser devolvido ao pagador ou creditado.
      </p>
      ${dataTable({
        caption: 'Valores recebidos fora do pagamento',
        empty: 'Nenhum valor recebido fora do pagamento.',
        rows: options.receivedFunds,
        columns: [
          { header: 'Chegou em', cell: (funds) => formatDateTime(funds.detected_at, timeZone) },
          { header: 'Tipo', cell: (funds) => receivedFundsKindLabels[funds.kind] },
          {
            header: 'Valor',
            amount: true,
            cell: (funds) => {
              const brl = funds.value_brl ?? funds.amount_brl;
              return brl === null ? `${funds.amount_token ?? '—'} tokens` : formatBrl(brl);
            },
          },
          { header: 'Situação', cell: (funds) => receivedFundsStatusLabels[funds.status] },
          { header: 'Referência', cell: (funds) => html`<code>${funds.reference}</code>` },
        ],
      })}`,
  );
}
