import type { SubscriptionInterval } from '@gateway/contracts';
import { escapeHtml } from './escape-html';
import { formatBrl } from './format-brl';
import { renderDocument } from './layout';

export type Stablecoin = 'USDC' | 'USDT' | 'EURC';

/** Everything the hosted page shows; all of it public. */
export interface CheckoutPageView {
  slug: string;
  businessName: string;
  productName: string;
  productDescription?: string | null;
  title: string;
  priceCentavos: number;
  /** A recurring product: the page sells a subscription of `priceCentavos` per interval; null: a one-off sale. */
  interval?: SubscriptionInterval | null;
  cancelUrl: string;
  rails: { pix: boolean; crypto: readonly Stablecoin[] };
  /** URL path the gateway serves `checkout.css` and `checkout.js` from, e.g. `/c/assets`. */
  assetBase: string;
  /** A sandbox deployment: the page says so, so nobody takes a test payment for a real one. */
  sandbox: boolean;
}

const STABLECOIN_HINTS: Readonly<Record<Stablecoin, string>> = {
  USDC: 'Dólar digital (Circle) na rede Solana',
  USDT: 'Dólar digital (Tether) na rede Solana',
  EURC: 'Euro digital (Circle) na rede Solana',
};

/** How the page says "per interval" (`R$ 49,90 por mês`) and names the subscription. */
const INTERVAL_TEXT: Readonly<Record<SubscriptionInterval, { per: string; plan: string }>> = {
  weekly: { per: 'por semana', plan: 'Assinatura semanal' },
  monthly: { per: 'por mês', plan: 'Assinatura mensal' },
  quarterly: { per: 'por trimestre', plan: 'Assinatura trimestral' },
  semiannual: { per: 'por semestre', plan: 'Assinatura semestral' },
  yearly: { per: 'por ano', plan: 'Assinatura anual' },
};

const LOCK_ICON =
  '<svg class="secure-icon" viewBox="0 0 16 16" aria-hidden="true" focusable="false">' +
  '<path d="M8 1a3.5 3.5 0 0 0-3.5 3.5V6H4a1.5 1.5 0 0 0-1.5 1.5v6A1.5 1.5 0 0 0 4 15h8a1.5 1.5 0 0 0 1.5-1.5v-6A1.5 ' +
  '1.5 0 0 0 12 6h-.5V4.5A3.5 3.5 0 0 0 8 1Zm2 5H6V4.5a2 2 0 1 1 4 0V6Z"/></svg>';

interface MethodChoice {
  id: string;
  name: string;
  hint: string;
  badge: string;
  dataAttributes: string;
}

/** The hosted checkout page at `/c/{slug}`; `checkout.js` drives the payment from the data attributes and ids. */
export function renderCheckoutPage(view: CheckoutPageView): string {
  const sessionsUrl = `/c/${encodeURIComponent(view.slug)}/sessions`;
  const sandboxBanner = view.sandbox
    ? '<p id="sandbox-badge" class="sandbox-badge" role="note"><strong>Ambiente de testes</strong> Nenhum valor real é cobrado.</p>\n'
    : '';
  const bodyHtml = `<main class="checkout" id="checkout" data-state="choose" data-sessions-url="${escapeHtml(sessionsUrl)}">
${sandboxBanner}${renderSummary(view)}
${renderChoice(methodChoices(view.rails, Boolean(view.interval)), Boolean(view.interval))}
${renderPayment(Boolean(view.interval))}
<p id="status" class="status" role="status" aria-live="polite"></p>
<button type="button" id="retry" class="button button-primary" hidden>Tentar novamente</button>
${renderFooter(view.cancelUrl)}
</main>
<noscript><p class="noscript">Para pagar, ative o JavaScript no seu navegador.</p></noscript>`;
  return renderDocument({
    title: `${view.title} · ${view.businessName}`,
    bodyHtml,
    assetBase: view.assetBase,
    withScript: true,
  });
}

function renderSummary(view: CheckoutPageView): string {
  const description = view.productDescription
    ? `\n<p class="product-description">${escapeHtml(view.productDescription)}</p>`
    : '';
  const initial = Array.from(view.businessName.trim())[0]?.toUpperCase() ?? '?';
  return `<header class="merchant">
<span class="merchant-avatar" aria-hidden="true">${escapeHtml(initial)}</span>
<p class="merchant-name">${escapeHtml(view.businessName)}</p>
</header>
<section class="summary" aria-labelledby="checkout-title">
<h1 id="checkout-title">${escapeHtml(view.title)}</h1>
<p class="product-name">${escapeHtml(view.productName)}</p>${description}
${renderPrice(view)}
</section>`;
}

function renderPrice(view: CheckoutPageView): string {
  const price = escapeHtml(formatBrl(view.priceCentavos));
  if (!view.interval) {
    return `<p class="price"><span class="price-label">Total</span> <strong id="price">${price}</strong></p>`;
  }
  const text = INTERVAL_TEXT[view.interval];
  return `<p id="subscription-badge" class="subscription-badge">${escapeHtml(text.plan)}</p>
<p class="price"><span class="price-label">Assinatura</span> <strong id="price">${price}</strong> <span id="price-interval" class="price-interval">${escapeHtml(text.per)}</span></p>
<p class="subscription-note">Cobrança automática pelo Pix Automático: ao pagar o primeiro valor você autoriza as próximas cobranças, e pode cancelar quando quiser pelo app do seu banco.</p>`;
}

function methodChoices(rails: CheckoutPageView['rails'], subscription: boolean): MethodChoice[] {
  const pix: MethodChoice[] = rails.pix
    ? [
        {
          id: 'pay-pix',
          name: subscription ? 'Assinar com PIX' : 'PIX',
          hint: subscription
            ? 'Um QR code paga a primeira cobrança e autoriza as próximas'
            : 'Aprovação na hora pelo app do seu banco',
          badge: 'PIX',
          dataAttributes: 'data-method="pix"',
        },
      ]
    : [];
  const crypto = rails.crypto.map((coin): MethodChoice => ({
    id: `pay-crypto-${coin.toLowerCase()}`,
    name: coin,
    hint: STABLECOIN_HINTS[coin],
    badge: coin === 'EURC' ? '€' : '$',
    dataAttributes: `data-method="crypto" data-currency="${coin.toLowerCase()}"`,
  }));
  return [...pix, ...crypto];
}

/** A subscription's debtor: the buyer's name and CPF (API Pix's pair), checked again by the server. */
const BUYER_FIELDS = `<fieldset id="buyer" class="buyer">
<legend>Seus dados</legend>
<label class="field-label" for="buyer-name">Nome completo</label>
<input id="buyer-name" class="field" name="name" type="text" autocomplete="name" maxlength="200" required>
<label class="field-label" for="buyer-document">CPF</label>
<input id="buyer-document" class="field" name="document" type="text" inputmode="numeric" autocomplete="off" maxlength="14" placeholder="000.000.000-00" required>
</fieldset>`;

function renderChoice(choices: readonly MethodChoice[], subscription: boolean): string {
  const buyer = subscription ? `${BUYER_FIELDS}\n` : '';
  const content =
    choices.length === 0
      ? '<p class="empty">Nenhuma forma de pagamento está disponível no momento.</p>'
      : `<ul class="methods">
${choices.map(renderMethodButton).join('\n')}
</ul>`;
  return `<section id="choose" class="step" aria-labelledby="choose-title">
<h2 id="choose-title" tabindex="-1">${subscription ? 'Assine' : 'Como você quer pagar?'}</h2>
${buyer}${content}
</section>`;
}

function renderMethodButton(choice: MethodChoice): string {
  return `<li><button type="button" class="method" id="${choice.id}" ${choice.dataAttributes}>
<span class="method-badge" aria-hidden="true">${escapeHtml(choice.badge)}</span>
<span class="method-text"><span class="method-name">${escapeHtml(choice.name)}</span><span class="method-hint">${escapeHtml(choice.hint)}</span></span>
</button></li>`;
}

function renderPayment(subscription: boolean): string {
  // A subscription's first cycle is not cancelled from the page (the payer cancels the subscription in their bank app).
  const changeMethod = subscription ? ' hidden' : '';
  return `<section id="pay" class="step" aria-labelledby="pay-title" hidden>
<h2 id="pay-title" tabindex="-1">Pague com PIX</h2>
<p id="pay-instructions" class="instructions"></p>
<div class="qr-frame"><img id="qr-code" class="qr-code" alt="QR code do pagamento" width="240" height="240"></div>
<p id="crypto-amount" class="crypto-amount" hidden>Envie exatamente <strong id="crypto-amount-value"></strong></p>
<a id="open-wallet" class="button button-primary" hidden>Abrir na carteira</a>
<label id="copia-e-cola-label" class="copy-label" for="copia-e-cola">PIX copia e cola</label>
<div class="copy">
<textarea id="copia-e-cola" class="copy-code" rows="4" readonly spellcheck="false"></textarea>
<button type="button" id="copy-button" class="button button-secondary">Copiar</button>
</div>
<p id="copy-feedback" class="copy-feedback" aria-live="polite"></p>
<p class="expiry">Expira em <span id="countdown" class="countdown" role="timer" aria-live="off">--:--</span></p>
<button type="button" id="change-method" class="link-button"${changeMethod}><span aria-hidden="true">←</span> Escolher outra forma de pagamento</button>
</section>`;
}

function renderFooter(cancelUrl: string): string {
  // The url was validated when the checkout was created; this keeps a `javascript:` url out of an href regardless.
  const cancelLink = /^https?:\/\//i.test(cancelUrl)
    ? `<a id="cancel-link" class="cancel-link" href="${escapeHtml(cancelUrl)}">Cancelar e voltar à loja</a>\n`
    : '';
  return `<footer class="footer">
${cancelLink}<p class="secure">${LOCK_ICON}Pagamento seguro e processado no Brasil</p>
</footer>`;
}
