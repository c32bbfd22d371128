import type { Customer } from '@gateway/sdk';
import { formatDateTime } from '../../domain/format';
import { alert, appPage, csrfField, type Viewer } from './layout';
import { html, type Markup } from './html';
import { dataTable } from './table';

export interface CustomerForm {
  name: string;
  email: string;
  phone_number: string;
  document_number: string;
}

const orDash = (value: string | null) => value ?? '—';

export function customersPage(
  viewer: Viewer,
  options: {
    customers: Customer[];
    /** The e-mail address searched for, when the list holds only its customers. */
    email?: string;
    nextCursor?: string;
    timeZone: string;
    canWrite: boolean;
    form?: CustomerForm;
    error?: string;
  },
): Markup {
  return appPage(
    viewer,
    '/clientes',
    'Clientes',
    html`${alert('error', options.error)}
      <form method="get" action="/clientes" class="filters" role="search">
        <div class="field">
          <label for="busca">Buscar por id ou e-mail</label>
          <input
            id="busca"
            name="q"
            type="search"
            placeholder="cust_... ou maria@exemplo.com"
            value=${options.email}
          />
        </div>
        <button type="submit">Buscar</button>
      </form>
      ${dataTable({
        caption: options.email
          ? `Clientes com o e-mail ${options.email}, do mais novo ao mais antigo`
          : 'Clientes, do mais novo ao mais antigo',
        empty: options.email ? 'Nenhum cliente com este e-mail.' : 'Nenhum cliente cadastrado.',
        rows: options.customers,
        columns: [
          {
            header: 'Cliente',
            cell: (customer) =>
              html`<a href=${`/clientes/${encodeURIComponent(customer.customer_id)}`}
                ><code>${customer.customer_id}</code></a
              >`,
          },
          { header: 'Nome', cell: (customer) => orDash(customer.name) },
          { header: 'E-mail', cell: (customer) => orDash(customer.email) },
          { header: 'Telefone', cell: (customer) => orDash(customer.phone_number) },
          { header: 'Documento', cell: (customer) => orDash(customer.document_number) },
          { header: 'Criado em', cell: (customer) => formatDateTime(customer.created_at, options.timeZone) },
        ],
      })}
      ${options.email ? html`<p><a href="/clientes">Todos os clientes</a></p>` : null}
      ${options.nextCursor ? html`<p><a href=${`/clientes?depois=${encodeURIComponent(options.nextCursor)}${options.email ? `&q=${encodeURIComponent(options.email)}` : ''}`}>Próxima página</a></p>` : null}
      ${
        options.canWrite
          ? html`<form method="post" action="/clientes">
              ${csrfField(viewer.csrfToken)}
              <h2>Novo cliente</h2>
              <p>
                Todos os campos são opcionais; e-mail e CPF/CNPJ são conferidos quando informados. Com nome e
                CPF/CNPJ, as cobranças PIX do cliente o identificam como devedor no app do banco.
              </p>
              <div class="field">
                <label for="cliente-nome">Nome do cliente</label>
                <input id="cliente-nome" name="name" maxlength="200" value=${options.form?.name} />
              </div>
              <div class="field">
                <label for="cliente-email">E-mail do cliente</label>
                <input
                  id="cliente-email"
                  name="email"
                  type="email"
                  maxlength="254"
                  value=${options.form?.email}
                />
              </div>
              <div class="field">
                <label for="cliente-telefone">Telefone</label>
                <input
                  id="cliente-telefone"
                  name="phone_number"
                  type="tel"
                  value=${options.form?.phone_number}
                />
              </div>
              <div class="field">
                <label for="cliente-documento">CPF ou CNPJ</label>
                <input id="cliente-documento" name="document_number" value=${options.form?.document_number} />
              </div>
              <button type="submit">Criar cliente</button>
            </form>`
          : null
      }`,
  );
}

export function customerPage(
  viewer: Viewer,
  options: { customer: Customer; timeZone: string; notice?: string },
): Markup {
  const { customer } = options;
  const row = (label: string, value: unknown) =>
    html`<div>
      <dt>${label}</dt>
      <dd>${value}</dd>
    </div>`;
  return appPage(
    viewer,
    '/clientes',
    `Cliente ${customer.customer_id}`,
    html`${alert('notice', options.notice)}
      <p><a href="/clientes">Voltar aos clientes</a></p>
      <dl class="details">
        ${row('Nome', orDash(customer.name))} ${row('E-mail', orDash(customer.email))}
        ${row('Telefone', orDash(customer.phone_number))}
        ${row('CPF ou CNPJ', orDash(customer.document_number))} ${row('IP de cadastro', orDash(customer.ip))}
        ${row('Criado em', formatDateTime(customer.created_at, options.timeZone))}
      </dl>
      <h2>Metadados</h2>
      ${customer.metadata ? html`<pre class="answer"><code>${customer.metadata}</code></pre>` : html`<p>Nenhum.</p>`}`,
  );
}
