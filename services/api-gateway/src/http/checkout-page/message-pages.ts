import { renderDocument } from './layout';

const DEFAULT_ASSET_BASE = '/c/assets';

/** The page for an unknown or inactive slug; send it with status 404. */
export function renderNotFoundPage(assetBase: string = DEFAULT_ASSET_BASE): string {
  const bodyHtml = `<main class="checkout checkout-message">
<p class="message-code" aria-hidden="true">404</p>
<h1>Checkout não encontrado</h1>
<p>O link pode estar incompleto ou este checkout não está mais disponível. Confira o endereço com a loja que o enviou.</p>
</main>`;
  return renderDocument({ title: 'Checkout não encontrado', bodyHtml, assetBase, withScript: false });
}

/** The page for a checkout that cannot be shown right now (a dependency is down); send it with status 503. */
export function renderUnavailablePage(assetBase: string = DEFAULT_ASSET_BASE): string {
  const bodyHtml = `<main class="checkout checkout-message">
<p class="message-code" aria-hidden="true">503</p>
<h1>Checkout temporariamente indisponível</h1>
<p>Não conseguimos carregar este checkout agora. Nenhuma cobrança foi feita. Aguarde alguns instantes e recarregue a página.</p>
</main>`;
  return renderDocument({
    title: 'Checkout temporariamente indisponível',
    bodyHtml,
    assetBase,
    withScript: false,
  });
}
