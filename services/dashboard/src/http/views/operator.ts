import type { HttpOperationTypes } from '@gateway/contracts';
import { formatBrl, formatDateTime, DEFAULT_TIME_ZONE } from '../../domain/format';
import type { AuditEntryEntity } from '../../persistence';
import { auditLog } from './audit';
import { field } from './auth';
import { keyStatusLabels } from './keys';
import { payoutAccountFields } from './payouts';
import { html, type Markup } from './html';
import { alert, csrfField, publicPage } from './layout';
import { operatorPage, type OperatorViewer } from './operator-layout';
import { dataTable } from './table';

type BusinessSummary = HttpOperationTypes['listBusinesses']['answer']['data'][number];
type Business = HttpOperationTypes['getBusiness']['answer'];
type Parked = HttpOperationTypes['listParkedMessages']['answer'];
type Reconciliation = HttpOperationTypes['getReconciliation']['answer'];

/** The console shows its moments in the platform's zone. */
const when = (iso: string): string => formatDateTime(iso, DEFAULT_TIME_ZONE);

const environmentLabels = { sandbox: 'Sandbox', production: 'Produção' } as const;

const feeMethods = [
  { method: 'pix', label: 'PIX' },
  { method: 'crypto', label: 'Cripto' },
] as const;

export function businessesPage(
  viewer: OperatorViewer,
  options: { businesses: BusinessSummary[]; nextCursor?: string },
): Markup {
  return operatorPage(
    viewer,
    '/operador/empresas',
    'Empresas',
    html`${dataTable({
      caption: 'As empresas da plataforma, da mais recente à mais antiga',
      empty: 'Nenhuma empresa ainda.',
      rows: options.businesses,
      columns: [
        {
          header: 'Empresa',
          cell: (b) =>
            html`<a href=${`/operador/empresas/${encodeURIComponent(b.business_id)}`}>${b.name}</a>`,
        },
        { header: 'Id', cell: (b) => html`<code>${b.business_id}</code>` },
        { header: 'Ambiente', cell: (b) => environmentLabels[b.environment] },
        { header: 'Criada em', cell: (b) => when(b.created_at) },
      ],
    })}
    ${
      options.nextCursor
        ? html`<p>
            <a href=${`/operador/empresas?depois=${encodeURIComponent(options.nextCursor)}`}>Mais empresas</a>
          </p>`
        : null
    }`,
  );
}

export interface FeeFormState {
  method: 'pix' | 'crypto';
  given: { percent: string; fixed: string };
  errors: { percent?: string; fixed?: string };
}

export function businessPage(
  viewer: OperatorViewer,
  options: {
    business: Business;
    feeChanges: AuditEntryEntity[];
    payoutChanges: AuditEntryEntity[];
    fee?: FeeFormState;
    payoutGiven?: { pix_key?: string; pix_key_type?: string; holder_document?: string };
    notice?: string;
    error?: string;
  },
): Markup {
  const { business } = options;
  const base = `/operador/empresas/${encodeURIComponent(business.business_id)}`;
  const payoutGiven = options.payoutGiven ?? {};
  return operatorPage(
    viewer,
    '/operador/empresas',
    business.name,
    html`${alert('error', options.error)} ${alert('notice', options.notice)}
      <dl class="details">
        <div>
          <dt>Id</dt>
          <dd><code>${business.business_id}</code></dd>
        </div>
        <div>
          <dt>Ambiente</dt>
          <dd>${environmentLabels[business.environment]}</dd>
        </div>
        <div>
          <dt>Criada em</dt>
          <dd>${when(business.created_at)}</dd>
        </div>
      </dl>
      <h2>Chaves de API</h2>
      ${dataTable({
        caption: 'As chaves de API mais recentes da empresa',
        empty: 'Nenhuma chave.',
        rows: business.api_keys,
        columns: [
          { header: 'Prefixo', cell: (key) => html`<code>${key.key_prefix}</code>` },
          {
            header: 'Situação',
            cell: (key) => keyStatusLabels[key.status as keyof typeof keyStatusLabels] ?? key.status,
          },
          { header: 'Criada em', cell: (key) => when(key.created_at) },
        ],
      })}
      <h2>Regras de taxa</h2>
      <p>
        Taxa = percentual do valor + valor fixo, limitada ao valor do pagamento. A API de operador não informa
        a regra em vigor: abaixo, as alterações feitas por operadores neste console.
      </p>
      ${feeMethods.map((entry) => {
        const state = options.fee?.method === entry.method ? options.fee : undefined;
        return html`<form method="post" action=${`${base}/taxas/${entry.method}`}>
          <fieldset>
            <legend>Taxa ${entry.label}</legend>
            ${csrfField(viewer.csrfToken)}
            ${field(`taxa-${entry.method}-percentual`, `Percentual ${entry.label} (%)`, {
              type: 'text',
              name: 'percent',
              autocomplete: 'off',
              value: state?.given.percent,
              error: state?.errors.percent,
            })}
            ${field(`taxa-${entry.method}-fixo`, `Valor fixo ${entry.label} (R$)`, {
              type: 'text',
              name: 'fixed',
              autocomplete: 'off',
              value: state?.given.fixed,
              error: state?.errors.fixed,
            })}
            <button type="submit">Salvar taxa ${entry.label}</button>
          </fieldset>
        </form>`;
      })}
      ${dataTable({
        caption: 'Alterações de taxa feitas por operadores, da mais recente à mais antiga',
        empty: 'Nenhuma alteração de taxa feita por este console.',
        rows: options.feeChanges,
        columns: [
          { header: 'Quando', cell: (entry) => when(entry.createdAt.toISOString()) },
          { header: 'Quem', cell: (entry) => entry.actorEmail ?? '—' },
          { header: 'Método', cell: (entry) => entry.details.method ?? '' },
          { header: 'Regra', cell: (entry) => entry.details.rule ?? '' },
        ],
      })}
      <h2>Conta de saque</h2>
      ${dataTable({
        caption: 'Contas de saque definidas por operadores, da mais recente à mais antiga',
        empty: 'Nenhuma conta de saque definida por este console.',
        rows: options.payoutChanges,
        columns: [
          { header: 'Quando', cell: (entry) => when(entry.createdAt.toISOString()) },
          { header: 'Quem', cell: (entry) => entry.actorEmail ?? '—' },
          { header: 'Chave', cell: (entry) => `${entry.details.type ?? ''} ${entry.details.key ?? ''}` },
        ],
      })}
      <form method="post" action=${`${base}/conta-de-saque`}>
        ${csrfField(viewer.csrfToken)} ${payoutAccountFields(payoutGiven)}
        <button type="submit">Salvar conta de saque</button>
      </form>
      <p><a href="/operador/empresas">Voltar às empresas</a></p>`,
  );
}

export function parkedPage(
  viewer: OperatorViewer,
  options: { parked: Parked; notice?: string; error?: string },
): Markup {
  const waiting = options.parked.queues.filter((queue) => queue.parked > 0);
  return operatorPage(
    viewer,
    '/operador/mensagens',
    'Mensagens estacionadas',
    html`${alert('error', options.error)} ${alert('notice', options.notice)}
      <p>
        Mensagens que falharam além das tentativas ficam estacionadas. Corrija a causa antes de reenviá-las às
        suas filas.
      </p>
      <p data-testid="total-estacionadas">Total estacionado: ${options.parked.total_parked}</p>
      ${dataTable({
        caption: 'Filas com mensagens estacionadas',
        empty: 'Nenhuma mensagem estacionada.',
        rows: waiting,
        columns: [
          { header: 'Fila', cell: (queue) => html`<code>${queue.queue}</code>` },
          { header: 'Estacionadas', amount: true, cell: (queue) => String(queue.parked) },
          {
            header: 'Ação',
            cell: (queue) =>
              html`<form method="post" action="/operador/mensagens/reenviar" class="inline">
                ${csrfField(viewer.csrfToken)}
                <input type="hidden" name="queue" value=${queue.queue} />
                <button type="submit" aria-label=${`Reenviar as mensagens de ${queue.queue}`}>
                  Reenviar
                </button>
              </form>`,
          },
        ],
      })}
      <form method="post" action="/operador/mensagens/reenviar">
        ${csrfField(viewer.csrfToken)}
        <button type="submit">Reenviar todas as filas</button>
      </form>`,
  );
}

const statusLabels = { completed: 'Concluída', failed: 'Falhou' } as const;
const triggerLabels = { schedule: 'Agendada', operator: 'Operador' } as const;
const brlOrDash = (amount: number | null): string => (amount === null ? '—' : formatBrl(amount));

export function reconciliationsPage(
  viewer: OperatorViewer,
  options: { runs: Reconciliation[]; nextCursor?: string; error?: string; from?: string },
): Markup {
  return operatorPage(
    viewer,
    '/operador/conciliacao',
    'Conciliação',
    html`${alert('error', options.error)}
      <p>Compara os livros com o PSP e a carteira. Uma diferença é relatada, nunca corrigida.</p>
      <form method="post" action="/operador/conciliacao">
        ${csrfField(viewer.csrfToken)}
        <div class="field">
          <label for="desde">Desde (opcional, até 31 dias)</label>
          <input id="desde" type="date" name="from" value=${options.from} />
        </div>
        <button type="submit">Executar conciliação</button>
      </form>
      ${dataTable({
        caption: 'Conciliações, da mais recente à mais antiga',
        empty: 'Nenhuma conciliação ainda.',
        rows: options.runs,
        columns: [
          {
            header: 'Conciliação',
            cell: (run) =>
              html`<a href=${`/operador/conciliacao/${encodeURIComponent(run.id)}`}>${run.id}</a>`,
          },
          { header: 'Situação', cell: (run) => statusLabels[run.status] },
          { header: 'Origem', cell: (run) => triggerLabels[run.trigger] },
          { header: 'Período', cell: (run) => `${when(run.period_from)} a ${when(run.period_to)}` },
          { header: 'Diferenças', amount: true, cell: (run) => String(run.difference_count) },
          { header: 'Pendentes', amount: true, cell: (run) => String(run.pending_count) },
        ],
      })}
      ${
        options.nextCursor
          ? html`<p>
              <a href=${`/operador/conciliacao?depois=${encodeURIComponent(options.nextCursor)}`}
                >Conciliações mais antigas</a
              >
            </p>`
          : null
      }`,
  );
}

const itemsTable = (caption: string, empty: string, items: Reconciliation['differences']): Markup =>
  dataTable({
    caption,
    empty,
    rows: items,
    columns: [
      { header: 'Tipo', cell: (item) => item.kind },
      { header: 'Trilho', cell: (item) => item.rail },
      { header: 'Referência', cell: (item) => item.reference ?? '—' },
      { header: 'No trilho', amount: true, cell: (item) => brlOrDash(item.rail_amount_brl) },
      { header: 'Nos livros', amount: true, cell: (item) => brlOrDash(item.books_amount_brl) },
    ],
  });

export function reconciliationPage(
  viewer: OperatorViewer,
  options: { run: Reconciliation; notice?: string },
): Markup {
  const { run } = options;
  return operatorPage(
    viewer,
    '/operador/conciliacao',
    `Conciliação ${run.id}`,
    html`${alert('notice', options.notice)}
      <dl class="details" data-testid="conciliacao">
        <div>
          <dt>Situação</dt>
          <dd>${statusLabels[run.status]}${run.failure_reason ? ` (${run.failure_reason})` : ''}</dd>
        </div>
        <div>
          <dt>Origem</dt>
          <dd>${triggerLabels[run.trigger]}</dd>
        </div>
        <div>
          <dt>Período</dt>
          <dd>${when(run.period_from)} a ${when(run.period_to)}</dd>
        </div>
        <div>
          <dt>Saldo no PSP</dt>
          <dd>${brlOrDash(run.psp_balance_brl)}</dd>
        </div>
        <div>
          <dt>cash_psp nos livros</dt>
          <dd>${brlOrDash(run.books_cash_psp_brl)}</dd>
        </div>
        <div>
          <dt>PIX recebido no PSP</dt>
          <dd>${brlOrDash(run.psp_received_brl)}</dd>
        </div>
        <div>
          <dt>PIX enviado pelo PSP</dt>
          <dd>${brlOrDash(run.psp_sent_brl)}</dd>
        </div>
        <div>
          <dt>Diferenças</dt>
          <dd>${run.difference_count}</dd>
        </div>
      </dl>
      <h2>Diferenças</h2>
      ${itemsTable('Diferenças entre os trilhos e os livros', 'Nenhuma diferença.', run.differences)}
      <h2>Pendentes</h2>
      ${itemsTable('Movimentos recentes que os livros ainda não lançaram', 'Nada pendente.', run.pending)}
      <h2>Tokens</h2>
      ${dataTable({
        caption: 'Carteira e livros, por token (unidades base)',
        empty: 'Nenhum token.',
        rows: run.tokens,
        columns: [
          { header: 'Token', cell: (token) => token.token.toUpperCase() },
          { header: 'Carteira', amount: true, cell: (token) => token.wallet_base_units },
          { header: 'Livros', amount: true, cell: (token) => token.books_base_units },
        ],
      })}
      <p><a href="/operador/conciliacao">Voltar às conciliações</a></p>`,
  );
}

export function operatorsPage(
  viewer: OperatorViewer,
  options: {
    operators: Array<{ email: string; createdAt: Date; activated: boolean; secondFactor: boolean }>;
    email?: string;
    notice?: string;
    error?: string;
  },
): Markup {
  return operatorPage(
    viewer,
    '/operador/operadores',
    'Operadores',
    html`${alert('error', options.error)} ${alert('notice', options.notice)}
      ${dataTable({
        caption: 'As pessoas que operam a plataforma',
        empty: 'Nenhum operador.',
        rows: options.operators,
        columns: [
          { header: 'E-mail', cell: (op) => op.email },
          { header: 'Convidado em', cell: (op) => when(op.createdAt.toISOString()) },
          { header: 'Senha criada', cell: (op) => (op.activated ? 'Sim' : 'Convite pendente') },
          { header: 'Duas etapas', cell: (op) => (op.secondFactor ? 'Ativa' : 'Não ativada') },
        ],
      })}
      <h2>Convidar operador</h2>
      <form method="post" action="/operador/operadores">
        ${csrfField(viewer.csrfToken)}
        ${field('email-operador', 'E-mail', {
          type: 'email',
          name: 'email',
          autocomplete: 'off',
          value: options.email,
        })}
        <button type="submit">Convidar operador</button>
      </form>`,
  );
}

export function operatorAuditPage(
  viewer: OperatorViewer,
  options: { entries: AuditEntryEntity[]; olderCursor?: string },
): Markup {
  return operatorPage(
    viewer,
    '/operador/auditoria',
    'Auditoria',
    auditLog({
      caption:
        'O que os operadores fizeram, e as entradas de nenhuma empresa, do mais recente ao mais antigo',
      entries: options.entries,
      timeZone: DEFAULT_TIME_ZONE,
      path: '/operador/auditoria',
      olderCursor: options.olderCursor,
    }),
  );
}

/** The invitation link's page: the operator creates their password. */
export function operatorInvitationPage(options: {
  csrfToken: string;
  token: string;
  error?: string;
}): Markup {
  return publicPage(
    'Convite de operador',
    html`${alert('error', options.error)}
      <p>Crie a sua senha do console de operação. Em seguida, ative a verificação em duas etapas.</p>
      <form method="post" action="/operador/convite">
        ${csrfField(options.csrfToken)}
        <input type="hidden" name="token" value=${options.token} />
        ${field('senha', 'Crie uma senha', {
          type: 'password',
          name: 'password',
          autocomplete: 'new-password',
          minlength: 10,
        })}
        <button type="submit">Criar senha</button>
      </form>`,
  );
}
