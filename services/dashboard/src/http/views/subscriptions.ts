import type { Gateway, Payment } from '@gateway/sdk';
import { formatBrl, formatDateTime, formatDay } from '../../domain/format';
import { alert, appPage, csrfField, statusFilter, type Viewer } from './layout';
import { html, type Markup } from './html';
import { paymentStatusText } from './payments';
import { dataTable } from './table';

/** A subscription as the public API answers it (the SDK's `subscriptions.get`; the SDK exports no name for it). */
export type Subscription = Awaited<ReturnType<Gateway['subscriptions']['get']>>;

export const subscriptionStatusLabels: Record<Subscription['status'], string> = {
  pending_authorization: 'Aguardando autorização',
  active: 'Ativa',
  cancelled: 'Cancelada',
  expired: 'Expirada',
};

const intervalLabels: Record<Subscription['interval'], string> = {
  weekly: 'Semanal',
  monthly: 'Mensal',
  quarterly: 'Trimestral',
  semiannual: 'Semestral',
  yearly: 'Anual',
};

const retryPolicyLabels: Record<Subscription['retry_policy'], string> = {
  none: 'Sem novas tentativas',
  three_in_seven_days: 'Até 3 novas tentativas em 7 dias',
};

/** The authorization journeys of Pix Automático (BCB), as the merchant knows them. */
const journeyLabels: Record<Subscription['authorization']['journey'], string> = {
  push: 'Jornada 1: pedido enviado ao banco do pagador',
  qr: 'Jornada 2: QR code de autorização',
  qr_with_first_payment: 'Jornada 3: QR code com o primeiro pagamento',
};

const cancelledByLabels: Record<NonNullable<Subscription['cancelled_by']>, string> = {
  merchant: 'pela empresa',
  payer: 'pelo pagador',
  psp: 'pelo PSP',
};

const cancellationReasonLabels: Record<NonNullable<Subscription['cancellation_reason']>, string> = {
  requested: 'a pedido',
  authorization_rejected: 'autorização recusada',
};

/** The next cycle, its due date, and the amount the merchant set for it (a varying subscription), on one line. */
function nextCycleLine(cycle: number, dueDate: string, amountBrl: number | null): string {
  const amount = amountBrl === null ? '' : `, valor ${formatBrl(amountBrl)}`;
  return `Ciclo ${cycle}, vence em ${formatDay(dueDate)}${amount}`;
}

/** What a cycle charges: the fixed amount, or "at least" the minimum when the amount varies. */
function amountText(subscription: Pick<Subscription, 'amount_brl' | 'minimum_amount_brl'>): string {
  if (subscription.amount_brl !== null) return formatBrl(subscription.amount_brl);
  return subscription.minimum_amount_brl !== null
    ? `Variável, mínimo ${formatBrl(subscription.minimum_amount_brl)}`
    : 'Variável';
}

/** The status a person reads, with who ended it and why when it was cancelled. */
function statusText(subscription: Subscription): string {
  const label = subscriptionStatusLabels[subscription.status];
  if (subscription.status !== 'cancelled' || !subscription.cancelled_by) return label;
  const reason = subscription.cancellation_reason
    ? `, ${cancellationReasonLabels[subscription.cancellation_reason]}`
    : '';
  return `${label} ${cancelledByLabels[subscription.cancelled_by]}${reason}`;
}

/** A subscription that may still be cancelled (the API refuses the others with INVALID_STATUS). */
export const cancellable = (subscription: Pick<Subscription, 'status'>): boolean =>
  subscription.status === 'pending_authorization' || subscription.status === 'active';

/** The list's filters: a status and a customer. */
export interface SubscriptionFilters {
  status?: Subscription['status'];
  /** `cust_...`. */
  customer?: string;
}

export function subscriptionsPage(
  viewer: Viewer,
  options: {
    subscriptions: Subscription[];
    filters: SubscriptionFilters;
    nextCursor?: string;
    timeZone: string;
    error?: string;
  },
): Markup {
  const { filters } = options;
  const nextQuery = new URLSearchParams({
    ...(filters.status ? { status: filters.status } : {}),
    ...(filters.customer ? { cliente: filters.customer } : {}),
    ...(options.nextCursor ? { depois: options.nextCursor } : {}),
  });
  return appPage(
    viewer,
    '/assinaturas',
    'Assinaturas',
    html`${alert('error', options.error)}
      <form method="get" action="/assinaturas" class="filters" role="search">
        ${statusFilter(subscriptionStatusLabels, filters.status)}
        <div class="field">
          <label for="cliente">Cliente</label>
          <input id="cliente" name="cliente" value=${filters.customer} placeholder="cust_..." />
        </div>
        <div class="field">
          <label for="busca">Buscar por id</label>
          <input id="busca" name="q" type="search" placeholder="sub_..." />
        </div>
        <button type="submit">Filtrar</button>
      </form>
      ${dataTable({
        caption: 'Assinaturas, da mais nova à mais antiga',
        empty: 'Nenhuma assinatura encontrada.',
        rows: options.subscriptions,
        columns: [
          {
            header: 'Assinatura',
            cell: (subscription) =>
              html`<a href=${`/assinaturas/${encodeURIComponent(subscription.subscription_id)}`}
                ><code>${subscription.subscription_id}</code></a
              >`,
          },
          {
            header: 'Cliente',
            cell: (subscription) =>
              html`<a href=${`/clientes/${encodeURIComponent(subscription.customer_id)}`}
                ><code>${subscription.customer_id}</code></a
              >`,
          },
          { header: 'Valor', amount: true, cell: (subscription) => amountText(subscription) },
          { header: 'Periodicidade', cell: (subscription) => intervalLabels[subscription.interval] },
          {
            header: 'Próximo vencimento',
            cell: (subscription) =>
              subscription.next_due_date ? formatDay(subscription.next_due_date) : '—',
          },
          {
            header: 'Situação',
            cell: (subscription) =>
              html`<span class=${`status status-${subscription.status}`}
                >${subscriptionStatusLabels[subscription.status]}</span
              >`,
          },
          {
            header: 'Criada em',
            cell: (subscription) => formatDateTime(subscription.created_at, options.timeZone),
          },
        ],
      })}
      ${options.nextCursor ? html`<p><a href=${`/assinaturas?${nextQuery.toString()}`}>Próxima página</a></p>` : null}`,
  );
}

/** Only a PNG data URI is drawn as the authorization's QR code (the page's policy allows no other source). */
const PNG_DATA_URI = /^data:image\/png;base64,[A-Za-z0-9+/=]+$/;

export function subscriptionPage(
  viewer: Viewer,
  options: {
    subscription: Subscription;
    /** Its cycles: the payments with its `subscription_id`, by cycle. */
    cycles: Payment[];
    /** More cycles than the page shows. */
    moreCycles: boolean;
    timeZone: string;
    canCancel: boolean;
    notice?: string;
    error?: string;
  },
): Markup {
  const { subscription, timeZone } = options;
  const { authorization } = subscription;
  const row = (label: string, value: unknown) =>
    html`<div>
      <dt>${label}</dt>
      <dd>${value}</dd>
    </div>`;
  const path = `/assinaturas/${encodeURIComponent(subscription.subscription_id)}`;
  const awaitingPayer = subscription.status === 'pending_authorization';
  return appPage(
    viewer,
    '/assinaturas',
    `Assinatura ${subscription.subscription_id}`,
    html`${alert('error', options.error)} ${alert('notice', options.notice)}
      <p><a href="/assinaturas">Voltar às assinaturas</a></p>
      <dl class="details">
        ${row('Situação', html`<span class=${`status status-${subscription.status}`} data-testid="situacao">${statusText(subscription)}</span>`)}
        ${row(
          'Cliente',
          html`<a href=${`/clientes/${encodeURIComponent(subscription.customer_id)}`}
            ><code>${subscription.customer_id}</code></a
          >`,
        )}
        ${row(subscription.amount_brl !== null ? 'Valor' : 'Valor mínimo', html`<span data-testid="valor">${amountText(subscription)}</span>`)}
        ${row('Periodicidade', intervalLabels[subscription.interval])}
        ${subscription.description ? row('Descrição', subscription.description) : null}
        ${row('Início', formatDay(subscription.start_date))}
        ${row('Fim', subscription.end_date ? formatDay(subscription.end_date) : 'Até ser cancelada')}
        ${row('Novas tentativas', retryPolicyLabels[subscription.retry_policy])}
        ${row('Autorização', journeyLabels[authorization.journey])}
        ${
          subscription.next_cycle !== null && subscription.next_due_date
            ? row(
                'Próximo ciclo',
                html`<span data-testid="proximo-ciclo"
                  >${nextCycleLine(subscription.next_cycle, subscription.next_due_date, subscription.next_cycle_amount_brl)}</span
                >`,
              )
            : null
        }
        ${row('Data da assinatura hoje', formatDay(subscription.current_date))}
        ${row('Criada em', formatDateTime(subscription.created_at, timeZone))}
        ${subscription.ended_at ? row('Encerrada em', formatDateTime(subscription.ended_at, timeZone)) : null}
      </dl>
      ${
        awaitingPayer && (authorization.qr_code || authorization.copia_e_cola)
          ? html`<section class="authorization">
              <h2>Autorização do pagador</h2>
              <p>
                O pagador autoriza a assinatura no app do banco lendo este QR code ou colando o código
                ${authorization.expires_at ? ` até ${formatDateTime(authorization.expires_at, timeZone)}` : ''}.
              </p>
              ${
                authorization.qr_code && PNG_DATA_URI.test(authorization.qr_code)
                  ? html`<img
                      class="qr"
                      src=${authorization.qr_code}
                      alt="QR code para o pagador autorizar a assinatura"
                    />`
                  : null
              }
              ${
                authorization.copia_e_cola
                  ? html`<div class="field">
                      <label for="copia-e-cola">Pix Copia e Cola</label>
                      <textarea
                        id="copia-e-cola"
                        readonly
                        rows="3"
                        value=${authorization.copia_e_cola}
                      ></textarea>
                    </div>`
                  : null
              }
            </section>`
          : awaitingPayer
            ? html`<p>
                O pedido de autorização foi enviado ao banco do pagador, que o aprova no app do banco.
              </p>`
            : null
      }
      ${
        options.canCancel && cancellable(subscription)
          ? html`<section class="cancel">
              <h2>Cancelamento</h2>
              <p>Nenhum ciclo novo é cobrado depois do cancelamento; os já pagos continuam pagos.</p>
              <p><a href=${`${path}/cancelar`} class="danger">Cancelar assinatura</a></p>
            </section>`
          : null
      }
      <h2>Ciclos</h2>
      ${dataTable({
        caption: 'Ciclos desta assinatura: os pagamentos de cada vencimento',
        empty: 'Nenhum ciclo cobrado ainda.',
        rows: options.cycles,
        columns: [
          { header: 'Ciclo', cell: (payment) => payment.cycle ?? '—' },
          {
            header: 'Pagamento',
            cell: (payment) =>
              html`<a href=${`/pagamentos/${encodeURIComponent(payment.payment_id)}`}
                ><code>${payment.payment_id}</code></a
              >`,
          },
          { header: 'Criado em', cell: (payment) => formatDateTime(payment.created_at, options.timeZone) },
          { header: 'Valor', amount: true, cell: (payment) => formatBrl(payment.amount_brl) },
          {
            header: 'Situação',
            cell: (payment) =>
              html`<span class=${`status status-${payment.status}`}>${paymentStatusText(payment)}</span>`,
          },
        ],
      })}
      ${
        options.moreCycles
          ? html`<p>
              Mostrando os ${options.cycles.length} ciclos mais recentes; os demais estão em
              <a href="/pagamentos">Pagamentos</a>.
            </p>`
          : null
      }`,
  );
}

/** The cancel's confirmation step: what cancelling does, and the form that does it. */
export function cancelSubscriptionPage(viewer: Viewer, options: { subscription: Subscription }): Markup {
  const { subscription } = options;
  const path = `/assinaturas/${encodeURIComponent(subscription.subscription_id)}`;
  return appPage(
    viewer,
    '/assinaturas',
    'Cancelar assinatura',
    html`<p>
        Cancelar a assinatura <code>${subscription.subscription_id}</code> do cliente
        <code>${subscription.customer_id}</code> (${amountText(subscription)},
        ${intervalLabels[subscription.interval]?.toLowerCase()})?
      </p>
      <p>
        A autorização no banco do pagador é encerrada e nenhum ciclo novo é cobrado. Os ciclos já pagos
        continuam pagos. Não é possível desfazer.
      </p>
      <form method="post" action=${`${path}/cancelar`} class="cancel">
        ${csrfField(viewer.csrfToken)}
        <button type="submit" class="danger">Confirmar cancelamento</button>
      </form>
      <p><a href=${path}>Voltar sem cancelar</a></p>`,
  );
}
