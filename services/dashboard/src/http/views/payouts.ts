import { dataTable } from './table';
import type { HttpApi } from '@gateway/contracts';
import { formatBrl, formatDateTime } from '../../domain/format';
import { monthLabel, pixKeyTypeLabels, pixKeyTypes, type PixKeyType } from '../../domain/payout-forms';
import { alert, appPage, csrfField, type Viewer } from './layout';
import { html, type Markup } from './html';
import { enrolFirst, stepUpField, type SecondFactorState } from './security';

type Payout = HttpApi.Payout;

/** The pages under Saldo, as a second navigation. */
const balancePages = [
  { path: '/saldo', label: 'Movimentações' },
  { path: '/saldo/extratos', label: 'Extratos' },
  { path: '/saldo/saques', label: 'Saques' },
  { path: '/saldo/conta', label: 'Conta de saque' },
] as const;

export type BalancePath = (typeof balancePages)[number]['path'];

export function balanceTabs(current: BalancePath): Markup {
  return html`<nav aria-label="Saldo" class="tabs">
    <ul>
      ${balancePages.map(
        (page) =>
          html`<li>
            <a href=${page.path} aria-current=${page.path === current ? 'page' : undefined}>${page.label}</a>
          </li>`,
      )}
    </ul>
  </nav>`;
}

export const payoutStatusLabels: Record<Payout['status'], string> = {
  pending: 'Em processamento',
  paid: 'Pago',
  failed: 'Falhou',
};

export function statementsPage(viewer: Viewer, options: { month: string; error?: string }): Markup {
  return appPage(
    viewer,
    '/saldo',
    'Extratos',
    html`${balanceTabs('/saldo/extratos')} ${alert('error', options.error)}
      <p>
        O extrato de um mês (em UTC) é um arquivo CSV com cada movimentação do saldo no mês, o saldo de
        abertura e o de fechamento.
      </p>
      <form method="get" action="/saldo/extratos/baixar" class="filters">
        <div class="field">
          <label for="mes">Mês</label>
          <input id="mes" type="month" name="mes" value=${options.month} required />
        </div>
        <button type="submit">Baixar extrato</button>
      </form>
      <p>Mês escolhido: ${monthLabel(options.month)}.</p>`,
  );
}

export function payoutsPage(
  viewer: Viewer,
  options: {
    payouts: Payout[];
    availableBrl: number;
    nextCursor?: string;
    timeZone: string;
    canRequest: boolean;
    secondFactor: SecondFactorState;
    idempotencyKey: string;
    amount?: string;
    notice?: string;
    error?: string;
  },
): Markup {
  const form = !options.canRequest
    ? null
    : options.secondFactor === 'enrol_first'
      ? enrolFirst()
      : html`<form method="post" action="/saldo/saques">
          ${csrfField(viewer.csrfToken)}
          <input type="hidden" name="idempotency_key" value=${options.idempotencyKey} />
          <div class="field">
            <label for="valor">Valor do saque (R$)</label>
            <input
              id="valor"
              name="amount"
              inputmode="decimal"
              value=${options.amount}
              aria-describedby="valor-dica"
            />
            <p class="hint" id="valor-dica">Em branco: todo o saldo disponível.</p>
          </div>
          ${stepUpField(options.secondFactor)}
          <button type="submit">Solicitar saque</button>
        </form>`;
  return appPage(
    viewer,
    '/saldo',
    'Saques',
    html`${balanceTabs('/saldo/saques')} ${alert('error', options.error)} ${alert('notice', options.notice)}
      <p>
        Disponível para saque: <strong data-testid="disponivel">${formatBrl(options.availableBrl)}</strong>. O
        saque vai por PIX para a <a href="/saldo/conta">conta de saque</a> da empresa.
      </p>
      ${form}
      <h2>Saques solicitados</h2>
      ${dataTable({
        caption: 'Saques, do mais novo ao mais antigo',
        empty: 'Nenhum saque ainda.',
        rows: options.payouts,
        columns: [
          {
            header: 'Saque',
            cell: (payout) =>
              html`<a href=${`/saldo/saques/${encodeURIComponent(payout.payout_id)}`}
                >${payout.payout_id}</a
              >`,
          },
          { header: 'Valor', amount: true, cell: (payout) => formatBrl(payout.amount_brl) },
          { header: 'Situação', cell: (payout) => payoutStatusLabels[payout.status] },
          { header: 'Destino', cell: (payout) => payout.destination.pix_key_masked },
          { header: 'Solicitado em', cell: (payout) => formatDateTime(payout.created_at, options.timeZone) },
        ],
      })}
      ${
        options.nextCursor
          ? html`<p>
              <a href=${`/saldo/saques?depois=${encodeURIComponent(options.nextCursor)}`}>Próxima página</a>
            </p>`
          : null
      }`,
  );
}

export function payoutPage(
  viewer: Viewer,
  options: { payout: Payout; timeZone: string; notice?: string },
): Markup {
  const { payout, timeZone } = options;
  const item = (label: string, value: Markup | string, testId?: string) =>
    html`<div>
      <dt>${label}</dt>
      <dd data-testid=${testId}>${value}</dd>
    </div>`;
  return appPage(
    viewer,
    '/saldo',
    `Saque ${payout.payout_id}`,
    html`${balanceTabs('/saldo/saques')} ${alert('notice', options.notice)}
      <dl class="details">
        ${item('Valor', formatBrl(payout.amount_brl))}
        ${item('Situação', payoutStatusLabels[payout.status], 'situacao')}
        ${item('Destino (chave PIX)', payout.destination.pix_key_masked)}
        ${item('Identificador PIX (endToEndId)', payout.external_id ?? '—')}
        ${payout.failure_reason ? item('Motivo da falha', payout.failure_reason) : null}
        ${item('Solicitado em', formatDateTime(payout.created_at, timeZone))}
        ${item('Atualizado em', formatDateTime(payout.updated_at, timeZone))}
      </dl>
      <p><a href="/saldo/saques">Todos os saques</a></p>`,
  );
}

/** The payout account's fields (the key's type, the key, the holder's document), as the owner and an operator fill them. */
export function payoutAccountFields(given: {
  pix_key?: string;
  pix_key_type?: string;
  holder_document?: string;
}): Markup {
  return html`<div class="field">
      <label for="tipo-chave">Tipo da chave PIX</label>
      <select id="tipo-chave" name="pix_key_type" required>
        ${pixKeyTypes.map(
          (type) =>
            html`<option value=${type} selected=${given.pix_key_type === type}>
              ${pixKeyTypeLabels[type]}
            </option>`,
        )}
      </select>
    </div>
    <div class="field">
      <label for="chave">Chave PIX</label>
      <input id="chave" name="pix_key" value=${given.pix_key} required autocomplete="off" />
    </div>
    <div class="field">
      <label for="titular">CPF ou CNPJ do titular</label>
      <input id="titular" name="holder_document" value=${given.holder_document} required autocomplete="off" />
    </div>`;
}

export function payoutAccountPage(
  viewer: Viewer,
  options: {
    account: { pixKeyType: PixKeyType; pixKeyHint: string; updatedAt: Date; updatedBy: string } | null;
    timeZone: string;
    canSet: boolean;
    secondFactor: SecondFactorState;
    given?: { pix_key?: string; pix_key_type?: string; holder_document?: string };
    notice?: string;
    error?: string;
  },
): Markup {
  const { account, given = {} } = options;
  const form = !options.canSet
    ? html`<p>Só o proprietário da empresa pode cadastrar ou mudar a conta de saque.</p>`
    : options.secondFactor === 'enrol_first'
      ? enrolFirst()
      : html`<form method="post" action="/saldo/conta">
          ${csrfField(viewer.csrfToken)} ${payoutAccountFields(given)} ${stepUpField(options.secondFactor)}
          <button type="submit">Salvar conta de saque</button>
        </form>`;
  return appPage(
    viewer,
    '/saldo',
    'Conta de saque',
    html`${balanceTabs('/saldo/conta')} ${alert('error', options.error)} ${alert('notice', options.notice)}
      <p>Os saques vão por PIX para esta chave, que deve ser da própria empresa ou do seu titular.</p>
      ${
        account
          ? html`<dl class="details" data-testid="conta-de-saque">
              <div>
                <dt>Tipo</dt>
                <dd>${pixKeyTypeLabels[account.pixKeyType]}</dd>
              </div>
              <div>
                <dt>Chave</dt>
                <dd>${account.pixKeyHint}</dd>
              </div>
              <div>
                <dt>Cadastrada em</dt>
                <dd>
                  ${formatDateTime(account.updatedAt.toISOString(), options.timeZone)} por
                  ${account.updatedBy}
                </dd>
              </div>
            </dl>`
          : html`<p>
              Nenhuma conta de saque cadastrada pelo painel. (Se o operador a cadastrou, os saques mostram a
              chave de destino.)
            </p>`
      }
      <h2>${account ? 'Mudar a conta de saque' : 'Cadastrar a conta de saque'}</h2>
      ${form}`,
  );
}
