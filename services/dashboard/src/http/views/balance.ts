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
      ${
        options.transactions.length === 0
          ? html`<p>Nenhuma movimentação ainda.</p>`
          : html`<table>
              <caption>
                Movimentações do saldo, da mais nova à mais antiga
              </caption>
              <thead>
                <tr>
                  <th scope="col">Tipo</th>
                  <th scope="col">Descrição</th>
                  <th scope="col">Valor</th>
                  <th scope="col">Tarifa</th>
                  <th scope="col">Líquido</th>
                  <th scope="col">Situação</th>
                  <th scope="col">Disponível em</th>
                </tr>
              </thead>
              <tbody>
                ${options.transactions.map(
                  (transaction) =>
                    html`<tr>
                      <td>${transactionLabels[transaction.type]}</td>
                      <td>${transaction.description}</td>
                      <td class="amount">${formatBrl(transaction.amount_brl)}</td>
                      <td class="amount">${formatBrl(transaction.fee_brl)}</td>
                      <td class="amount">${formatBrl(transaction.net_brl)}</td>
                      <td>${transaction.status === 'available' ? 'Disponível' : 'A liberar'}</td>
                      <td>${formatDateTime(transaction.available_on, timeZone)}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
      }
      ${
        options.nextCursor
          ? html`<p>
              <a href=${`/saldo?depois=${encodeURIComponent(options.nextCursor)}`}>Próxima página</a>
            </p>`
          : null
      }`,
  );
}
