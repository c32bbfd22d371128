import { escapeHtml } from '../checkout-page';
import { apiReferenceAssets, type ApiReferenceAssetName } from './assets';

export interface ApiReferencePageOptions {
  title: string;
  /** Where the page and its assets live, e.g. `/docs`. */
  base: string;
  openApiUrl: string;
  /** Whether the page may send requests ("try it out"): only against the sandbox. */
  tryItOut: boolean;
}

function assetUrl(base: string, name: ApiReferenceAssetName): string {
  return escapeHtml(`${base}/assets/${name}?v=${apiReferenceAssets[name].version}`);
}

/** The reference page: an empty mount point for Swagger UI, its files, and nothing inline. */
export function renderApiReferencePage(options: ApiReferencePageOptions): string {
  const { base } = options;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.title)}</title>
<link rel="icon" type="image/png" href="${assetUrl(base, 'favicon-32x32.png')}">
<link rel="stylesheet" href="${assetUrl(base, 'swagger-ui.css')}">
<script src="${assetUrl(base, 'swagger-ui-bundle.js')}" defer></script>
<script src="${assetUrl(base, 'api-reference.js')}" defer></script>
</head>
<body>
<div id="api-reference" data-openapi-url="${escapeHtml(options.openApiUrl)}" data-try-it-out="${options.tryItOut}"></div>
</body>
</html>
`;
}
