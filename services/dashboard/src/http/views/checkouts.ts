import type { Checkout, CheckoutWithSessions, Product } from '@gateway/sdk';
import { formatBrl, formatDateTime } from '../../domain/format';
import { alert, appPage, csrfField, type Viewer } from './layout';
import { html, type Markup } from './html';
import { dataTable, type Column } from './table';

const checkoutStatusLabels: Record<Checkout['status'], string> = { active: 'Ativo', inactive: 'Desativado' };

const sessionStatusLabels: Record<CheckoutWithSessions['sessions'][number]['status'], string> = {
  initiated: 'Iniciada',
  paid: 'Paga',
  expired: 'Expirada',
  failed: 'Falhou',
  cancelled: 'Cancelada',
};

export interface ProductForm {
  name: string;
  price: string;
  description: string;
}

export interface CheckoutForm {
  product_id: string;
  title: string;
  return_url: string;
  cancel_url: string;
}

/** The amount a price field shows: `79,90`. */
const priceText = (price: number) => formatBrl(price).slice(3);

/** A product's edit form, folded under its row's "Editar" (no script: the browser opens it). */
function productEdit(viewer: Viewer, product: Product): Markup {
  const id = (field: string) => `produto-${product.product_id}-${field}`;
  return html`<details>
    <summary>Editar<span class="visually-hidden"> o produto ${product.name}</span></summary>
    <form method="post" action=${`/checkouts/produtos/${encodeURIComponent(product.product_id)}`}>
      ${csrfField(viewer.csrfToken)}
      <div class="field">
        <label for=${id('nome')}>Nome</label>
        <input id=${id('nome')} name="name" required maxlength="200" value=${product.name} />
      </div>
      <div class="field">
        <label for=${id('preco')}>Preço (R$)</label>
        <input
          id=${id('preco')}
          name="price"
          inputmode="decimal"
          required
          value=${priceText(product.price)}
        />
      </div>
      <div class="field">
        <label for=${id('descricao')}>Descrição</label>
        <input id=${id('descricao')} name="description" maxlength="500" value=${product.description ?? ''} />
      </div>
      <button type="submit">Salvar produto</button>
    </form>
  </details>`;
}

const productStatusLabels: Record<Product['status'], string> = { active: 'Ativo', inactive: 'Desativado' };

/** A product's "Desativar" (or "Reativar"), named for screen readers by the product it acts on. */
function productStatusAction(viewer: Viewer, product: Product): Markup {
  const active = product.status === 'active';
  return html`<form
    method="post"
    action=${`/checkouts/produtos/${encodeURIComponent(product.product_id)}/${active ? 'desativar' : 'reativar'}`}
  >
    ${csrfField(viewer.csrfToken)}
    <button type="submit" class=${active ? 'danger' : undefined}>
      ${active ? 'Desativar' : 'Reativar'}<span class="visually-hidden"> o produto ${product.name}</span>
    </button>
  </form>`;
}

const checkoutColumns = (productNames: Map<string, string>, timeZone: string): Column<Checkout>[] => [
  {
    header: 'Checkout',
    cell: (checkout) =>
      html`<a href=${`/checkouts/${encodeURIComponent(checkout.checkout_id)}`}
        >${checkout.title ?? checkout.slug}</a
      >`,
  },
  { header: 'Produto', cell: (checkout) => productNames.get(checkout.product_id) ?? checkout.product_id },
  { header: 'Link', cell: (checkout) => html`<code>${checkout.url}</code>` },
  { header: 'Situação', cell: (checkout) => checkoutStatusLabels[checkout.status] },
  { header: 'Criado em', cell: (checkout) => formatDateTime(checkout.created_at, timeZone) },
];

const productColumns = (viewer: Viewer, timeZone: string, canWrite: boolean): Column<Product>[] => [
  {
    header: 'Produto',
    cell: (product) => html`${product.name} ${canWrite ? productEdit(viewer, product) : null}`,
  },
  { header: 'Preço', amount: true, cell: (product) => formatBrl(product.price) },
  { header: 'Descrição', cell: (product) => product.description ?? '—' },
  {
    header: 'Situação',
    cell: (product) =>
      html`${productStatusLabels[product.status]} ${canWrite ? productStatusAction(viewer, product) : null}`,
  },
  { header: 'Criado em', cell: (product) => formatDateTime(product.created_at, timeZone) },
];

const sessionColumns = (timeZone: string): Column<CheckoutWithSessions['sessions'][number]>[] => [
  {
    header: 'Pagamento',
    cell: (session) =>
      html`<a href=${`/pagamentos/${encodeURIComponent(session.payment_id)}`}
        ><code>${session.payment_id}</code></a
      >`,
  },
  { header: 'Situação', cell: (session) => sessionStatusLabels[session.status] },
  { header: 'Iniciada em', cell: (session) => formatDateTime(session.created_at, timeZone) },
];

export function checkoutsPage(
  viewer: Viewer,
  options: {
    products: Product[];
    checkouts: Checkout[];
    productsCursor?: string;
    checkoutsCursor?: string;
    timeZone: string;
    canWrite: boolean;
    productForm?: ProductForm;
    checkoutForm?: CheckoutForm;
    notice?: string;
    error?: string;
  },
): Markup {
  const productNames = new Map(options.products.map((product) => [product.product_id, product.name]));
  // An inactive product is sold by no new checkout: the API refuses one, so the form does not offer it.
  const activeProducts = options.products.filter((product) => product.status === 'active');
  return appPage(
    viewer,
    '/checkouts',
    'Checkouts',
    html`${alert('error', options.error)} ${alert('notice', options.notice)}
      <h2>Links de pagamento</h2>
      ${dataTable({
        caption: 'Checkouts, do mais novo ao mais antigo',
        empty: 'Nenhum checkout criado.',
        rows: options.checkouts,
        columns: checkoutColumns(productNames, options.timeZone),
      })}
      ${options.checkoutsCursor ? html`<p><a href=${`/checkouts?checkouts_depois=${encodeURIComponent(options.checkoutsCursor)}`}>Mais checkouts</a></p>` : null}
      ${
        options.canWrite && activeProducts.length > 0
          ? html`<form method="post" action="/checkouts">
              ${csrfField(viewer.csrfToken)}
              <h3>Novo checkout</h3>
              <div class="field">
                <label for="checkout-produto">Produto</label>
                <select id="checkout-produto" name="product_id" required>
                  ${activeProducts.map(
                    (product) =>
                      html`<option
                        value=${product.product_id}
                        selected=${options.checkoutForm?.product_id === product.product_id}
                      >
                        ${product.name} (${formatBrl(product.price)})
                      </option>`,
                  )}
                </select>
              </div>
              <div class="field">
                <label for="checkout-titulo">Título (opcional)</label>
                <input
                  id="checkout-titulo"
                  name="title"
                  maxlength="200"
                  value=${options.checkoutForm?.title}
                />
              </div>
              <div class="field">
                <label for="checkout-retorno">Endereço após o pagamento</label>
                <input
                  id="checkout-retorno"
                  name="return_url"
                  type="url"
                  required
                  value=${options.checkoutForm?.return_url}
                />
              </div>
              <div class="field">
                <label for="checkout-cancelamento">Endereço ao cancelar</label>
                <input
                  id="checkout-cancelamento"
                  name="cancel_url"
                  type="url"
                  required
                  value=${options.checkoutForm?.cancel_url}
                />
              </div>
              <button type="submit">Criar checkout</button>
            </form>`
          : null
      }
      <h2>Produtos</h2>
      ${dataTable({
        caption: 'Produtos, do mais novo ao mais antigo',
        empty: 'Nenhum produto cadastrado. Um checkout vende um produto: crie o primeiro abaixo.',
        rows: options.products,
        columns: productColumns(viewer, options.timeZone, options.canWrite),
      })}
      ${options.productsCursor ? html`<p><a href=${`/checkouts?produtos_depois=${encodeURIComponent(options.productsCursor)}`}>Mais produtos</a></p>` : null}
      ${
        options.canWrite
          ? html`<form method="post" action="/checkouts/produtos">
              ${csrfField(viewer.csrfToken)}
              <h3>Novo produto</h3>
              <div class="field">
                <label for="produto-nome">Nome do produto</label>
                <input
                  id="produto-nome"
                  name="name"
                  required
                  maxlength="200"
                  value=${options.productForm?.name}
                />
              </div>
              <div class="field">
                <label for="produto-preco">Preço (R$)</label>
                <input
                  id="produto-preco"
                  name="price"
                  inputmode="decimal"
                  required
                  placeholder="79,90"
                  value=${options.productForm?.price}
                />
              </div>
              <div class="field">
                <label for="produto-descricao">Descrição (opcional)</label>
                <input
                  id="produto-descricao"
                  name="description"
                  maxlength="500"
                  value=${options.productForm?.description}
                />
              </div>
              <button type="submit">Criar produto</button>
            </form>`
          : null
      }`,
  );
}

export function checkoutPage(
  viewer: Viewer,
  options: {
    checkout: CheckoutWithSessions;
    timeZone: string;
    canWrite: boolean;
    notice?: string;
    error?: string;
  },
): Markup {
  const { checkout, timeZone } = options;
  const base = `/checkouts/${encodeURIComponent(checkout.checkout_id)}`;
  const row = (label: string, value: unknown) =>
    html`<div>
      <dt>${label}</dt>
      <dd>${value}</dd>
    </div>`;
  return appPage(
    viewer,
    '/checkouts',
    `Checkout ${checkout.title ?? checkout.slug}`,
    html`${alert('error', options.error)} ${alert('notice', options.notice)}
      <p><a href="/checkouts">Voltar aos checkouts</a></p>
      <section class="new-key" aria-labelledby="link-titulo">
        <h2 id="link-titulo">Link de pagamento</h2>
        <p>
          ${
            checkout.status === 'active'
              ? 'Compartilhe este endereço com quem vai pagar:'
              : 'Desativado: este endereço não abre a página até o checkout ser reativado.'
          }
        </p>
        <p><code class="secret" data-testid="link-checkout">${checkout.url}</code></p>
      </section>
      <dl class="details">
        ${row('Situação', html`<span data-testid="situacao-checkout">${checkoutStatusLabels[checkout.status]}</span>`)}
        ${row('Id', html`<code>${checkout.checkout_id}</code>`)}
        ${row('Produto', html`<code>${checkout.product_id}</code>`)}
        ${row('Criado em', formatDateTime(checkout.created_at, timeZone))}
      </dl>
      ${
        options.canWrite
          ? html`<form method="post" action=${base}>
                ${csrfField(viewer.csrfToken)}
                <h2>Editar</h2>
                <div class="field">
                  <label for="checkout-titulo">Título</label>
                  <input id="checkout-titulo" name="title" maxlength="200" value=${checkout.title ?? ''} />
                </div>
                <div class="field">
                  <label for="checkout-retorno">Endereço após o pagamento</label>
                  <input
                    id="checkout-retorno"
                    name="return_url"
                    type="url"
                    required
                    value=${checkout.return_url}
                  />
                </div>
                <div class="field">
                  <label for="checkout-cancelamento">Endereço ao cancelar</label>
                  <input
                    id="checkout-cancelamento"
                    name="cancel_url"
                    type="url"
                    required
                    value=${checkout.cancel_url}
                  />
                </div>
                <button type="submit">Salvar</button>
              </form>
              <form
                method="post"
                action=${`${base}/${checkout.status === 'active' ? 'desativar' : 'reativar'}`}
              >
                ${csrfField(viewer.csrfToken)}
                <button type="submit" class=${checkout.status === 'active' ? 'danger' : undefined}>
                  ${checkout.status === 'active' ? 'Desativar' : 'Reativar'}
                </button>
              </form>`
          : null
      }
      <h2>Sessões de pagamento</h2>
      ${dataTable({
        caption: 'Pagamentos iniciados neste checkout, do mais novo ao mais antigo',
        empty: 'Nenhum pagamento iniciado neste checkout.',
        rows: checkout.sessions,
        columns: sessionColumns(timeZone),
      })}`,
  );
}
