import { webhookEventNames } from '@gateway/contracts';
import type { Webhook, WebhookDelivery, WebhookDeliveryAttempt } from '@gateway/sdk';
import { formatDateTime } from '../../domain/format';
import { alert, appPage, csrfField, type Viewer } from './layout';
import { html, type Markup } from './html';
import { dataTable } from './table';
import { eventLabels } from './payments';

const webhookStatusLabels: Record<Webhook['status'], string> = { active: 'Ativo', inactive: 'Inativo' };

const deliveryStatusLabels: Record<WebhookDelivery['status'], string> = {
  pending: 'Aguardando nova tentativa',
  delivered: 'Entregue',
  dead: 'Desistida',
  cancelled: 'Cancelada',
};

/** How much of an endpoint's answer a delivery's page shows. */
export const ANSWER_EXCERPT_LENGTH = 300;

/** A webhook's signing secret, shown this once (at creation or rotation). */
function secretPanel(secret: string): Markup {
  return html`<section class="new-key" aria-labelledby="novo-segredo">
    <h2 id="novo-segredo">Segredo de assinatura</h2>
    <p>Copie e guarde este segredo agora: ele não será mostrado de novo.</p>
    <p><code class="secret" data-testid="segredo-webhook">${secret}</code></p>
  </section>`;
}

export function webhooksPage(
  viewer: Viewer,
  options: {
    webhooks: Webhook[];
    nextCursor?: string;
    timeZone: string;
    canWrite: boolean;
    secret?: string;
    form?: { url: string; events: string[] };
    notice?: string;
    error?: string;
  },
): Markup {
  const chosen = new Set(options.form?.events ?? ['payment.confirmed']);
  return appPage(
    viewer,
    '/webhooks',
    'Webhooks',
    html`${alert('error', options.error)} ${alert('notice', options.notice)}
    ${options.secret ? secretPanel(options.secret) : null}
    ${dataTable({
      caption: 'Endpoints que recebem os eventos da empresa',
      empty: 'Nenhum endpoint cadastrado.',
      rows: options.webhooks,
      columns: [
        {
          header: 'Endereço',
          cell: (webhook) =>
            html`<a href=${`/webhooks/${encodeURIComponent(webhook.webhook_id)}`}>${webhook.url}</a>`,
        },
        { header: 'Eventos', cell: (webhook) => webhook.events.join(', ') },
        { header: 'Situação', cell: (webhook) => webhookStatusLabels[webhook.status] },
        { header: 'Criado em', cell: (webhook) => formatDateTime(webhook.created_at, options.timeZone) },
      ],
    })}
    ${options.nextCursor ? html`<p><a href=${`/webhooks?depois=${encodeURIComponent(options.nextCursor)}`}>Próxima página</a></p>` : null}
    ${
      options.canWrite
        ? html`<form method="post" action="/webhooks">
            ${csrfField(viewer.csrfToken)}
            <h2>Novo endpoint</h2>
            <div class="field">
              <label for="url">Endereço (https://)</label>
              <input id="url" name="url" type="url" required maxlength="2048" value=${options.form?.url} />
            </div>
            <fieldset>
              <legend>Eventos</legend>
              ${webhookEventNames.map(
                (name) =>
                  html`<label class="choice"
                    ><input type="checkbox" name="events" value=${name} checked=${chosen.has(name)} />
                    ${eventLabels[name]} (<code>${name}</code>)</label
                  >`,
              )}
            </fieldset>
            <button type="submit">Criar endpoint</button>
          </form>`
        : null
    }`,
  );
}

/** One attempt as the table shows it: the HTTP answer code, or why there was none. */
/** What the endpoint answered an attempt: the error, an excerpt of its body (shown as text), or a dash. */
function attemptAnswer(attempt: WebhookDeliveryAttempt): Markup {
  const excerpt = attempt.response_body?.slice(0, ANSWER_EXCERPT_LENGTH);
  return html`${attempt.error ? html`<p>${attempt.error}</p>` : null}
  ${excerpt ? html`<pre class="answer"><code>${excerpt}</code></pre>` : attempt.error ? null : '—'}`;
}

function deliverySection(
  viewer: Viewer,
  webhookId: string,
  delivery: WebhookDelivery,
  options: { timeZone: string; canWrite: boolean },
): Markup {
  const headingId = `entrega-${delivery.delivery_id}`;
  return html`<section class="delivery" aria-labelledby=${headingId} data-testid="entrega">
    <h3 id=${headingId}>
      ${eventLabels[delivery.event_type as keyof typeof eventLabels] ?? delivery.event_type}${' '}
      <code>${delivery.event_id}</code>
    </h3>
    <p>
      <span class=${`status delivery-${delivery.status}`}>${deliveryStatusLabels[delivery.status]}</span>
      ${' · criada em '}${formatDateTime(delivery.created_at, options.timeZone)}
      ${delivery.next_attempt_at ? ` · próxima tentativa em ${formatDateTime(delivery.next_attempt_at, options.timeZone)}` : ''}
    </p>
    ${
      options.canWrite
        ? html`<form
            method="post"
            action=${`/webhooks/${encodeURIComponent(webhookId)}/entregas/${encodeURIComponent(delivery.delivery_id)}/reenviar`}
          >
            ${csrfField(viewer.csrfToken)}
            <button type="submit" aria-label=${`Reenviar o evento ${delivery.event_id}`}>Reenviar</button>
          </form>`
        : null
    }
    ${dataTable({
      caption: `Tentativas de entrega do evento ${delivery.event_id}`,
      empty: 'Nenhuma tentativa ainda.',
      rows: delivery.attempts,
      columns: [
        { header: 'Quando', cell: (attempt) => formatDateTime(attempt.attempted_at, options.timeZone) },
        { header: 'Código HTTP', cell: (attempt) => attempt.status_code ?? '—' },
        { header: 'Duração', cell: (attempt) => `${attempt.latency_ms} ms` },
        { header: 'Resposta', cell: attemptAnswer },
      ],
    })}
  </section>`;
}

export function webhookPage(
  viewer: Viewer,
  options: {
    webhook: Webhook;
    deliveries: WebhookDelivery[];
    nextCursor?: string;
    timeZone: string;
    canWrite: boolean;
    secret?: string;
    notice?: string;
    error?: string;
  },
): Markup {
  const { webhook, timeZone } = options;
  const base = `/webhooks/${encodeURIComponent(webhook.webhook_id)}`;
  const action = (verb: string, label: string, danger = false) =>
    html`<form method="post" action=${`${base}/${verb}`}>
      ${csrfField(viewer.csrfToken)}
      <button type="submit" class=${danger ? 'danger' : undefined}>${label}</button>
    </form>`;
  return appPage(
    viewer,
    '/webhooks',
    'Endpoint de webhook',
    html`${alert('error', options.error)} ${alert('notice', options.notice)}
      ${options.secret ? secretPanel(options.secret) : null}
      <p><a href="/webhooks">Voltar aos webhooks</a></p>
      <dl class="details">
        <div>
          <dt>Endereço</dt>
          <dd>${webhook.url}</dd>
        </div>
        <div>
          <dt>Id</dt>
          <dd><code>${webhook.webhook_id}</code></dd>
        </div>
        <div>
          <dt>Situação</dt>
          <dd>${webhookStatusLabels[webhook.status]}</dd>
        </div>
        <div>
          <dt>Eventos</dt>
          <dd>${webhook.events.join(', ')}</dd>
        </div>
        <div>
          <dt>Criado em</dt>
          <dd>${formatDateTime(webhook.created_at, timeZone)}</dd>
        </div>
      </dl>
      ${
        options.canWrite
          ? html`<div class="actions">
              ${action('testar', 'Enviar evento de teste')} ${action('trocar-segredo', 'Trocar o segredo')}
              ${action('excluir', 'Excluir endpoint', true)}
            </div>`
          : null
      }
      <h2>Entregas</h2>
      ${
        options.deliveries.length === 0
          ? html`<p>Nenhuma entrega ainda.</p>`
          : options.deliveries.map((delivery) =>
              deliverySection(viewer, webhook.webhook_id, delivery, { timeZone, canWrite: options.canWrite }),
            )
      }
      ${options.nextCursor ? html`<p><a href=${`${base}?depois=${encodeURIComponent(options.nextCursor)}`}>Entregas mais antigas</a></p>` : null}`,
  );
}
