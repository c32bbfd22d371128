import { checkoutAssets, type CheckoutAssetName } from './assets';
import { escapeHtml } from './escape-html';

export interface DocumentParts {
  /** Plain text for `<title>`. */
  title: string;
  /** Already-escaped HTML of the page body. */
  bodyHtml: string;
  assetBase: string;
  withScript: boolean;
}

function assetUrl(assetBase: string, name: CheckoutAssetName): string {
  return escapeHtml(`${assetBase}/${name}?v=${checkoutAssets[name].version}`);
}

/** The HTML shell shared by the hosted pages: pt-BR, phone viewport, own stylesheet and icon, nothing inline. */
export function renderDocument(parts: DocumentParts): string {
  const script = parts.withScript
    ? `\n<script src="${assetUrl(parts.assetBase, 'checkout.js')}" defer></script>`
    : '';
  return `<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(parts.title)}</title>
<link rel="icon" type="image/svg+xml" href="${assetUrl(parts.assetBase, 'favicon.svg')}">
<link rel="stylesheet" href="${assetUrl(parts.assetBase, 'checkout.css')}">${script}
</head>
<body>
${parts.bodyHtml}
</body>
</html>
`;
}
