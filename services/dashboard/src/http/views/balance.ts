import { dataTable } from './table';
import type { HttpApi } from '@gateway/contracts';

type Balance = HttpApi.Balance;
type BalanceTransaction = HttpApi.BalanceTransaction;
import { formatBrl, formatDateTime } from '../../domain/format';
import { alert, appPage, type Viewer } from './layout';
import { html, type Markup } from './html';
import { balanceTabs } from './payouts';

const transactionLabels: Record<BalanceTransaction['type'], string> = {
  payment: 'Pagamento',
  refund: 'Reembolso',
  payout: 'Saque',
  dispute: 'Contestação',
  dispute_won: 'Contestação ganha',
  adjustment: 'Ajuste',
};

export function balancePage(
  viewer: Viewer,
  options: {
    balance: Balance;
    transactions: BalanceTransaction[];
    nextCursor?: string;
    timeZone: string;
    error?: string;
  },
): Markup {
  const { balance, timeZone } = options;
  const part = (label: string, amount: number, hint: string) =>
    html`<div class="card">
      <dt>${label}</dt>
      <dd><strong>${formatBrl(amount)}</strong><br /><small>${hint}</small></dd>
    </div>`;
  return appPage(
    viewer,
    '/saldo',
    'Saldo',
    html`${balanceTabs('/saldo')} ${alert('error', options.error)}
      <dl class="cards">
        ${part('Disponível', balance.available_brl, 'pode ser sacado ou reembolsado')}
        ${part('A liberar', balance.pending_brl, 'pago, ainda não liquidado')}
        ${part('Reservado', balance.reserved_brl, 'reembolsos e saques em andamento')}
        ${part('Bloqueado', balance.blocked_brl, 'contestações abertas')}
      </dl>
      <p>Atualizado em ${formatDateTime(balance.updated_at, timeZone)}</p>
      <h2>Movimentações</h2>
      ${dataTable({
        caption: 'Movimentações do saldo, da mais nova à mais antiga',
        empty: 'Nenhuma movimentação ainda.',
        rows: options.transactions,
        columns: [
          { header: 'Tipo', cell: (transaction) => transactionLabels[transaction.type] },
          { header: 'Descrição', cell: (transaction) => transaction.description },
          { header: 'Valor', amount: true, cell: (transaction) => formatBrl(transaction.amount_brl) },
          { header: 'Tarifa', amount: true, cell: (transaction) => formatBrl(transaction.fee_brl) },
          { header: 'Líquido', amount: true, cell: (transaction) => formatBrl(transaction.net_brl) },
          {
            header: 'Situação',
            cell: (transaction) => (transaction.status === 'available' ? 'Disponível' : 'A liberar'),
          },
          {
            header: 'Disponível em',
            cell: (transaction) => formatDateTime(transaction.available_on, timeZone),
          },
        ],
      })}
      ${
        options.nextCursor
          ? html`<p>
              <a href=${`/saldo?depois=${encodeURIComponent(options.nextCursor)}`}>Próxima página</a>
            </p>`
          : null
      }`,
  );
}
