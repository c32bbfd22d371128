import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export type CheckoutAssetName = 'checkout.css' | 'checkout.js' | 'favicon.svg';

export interface StaticAsset {
  contentType: string;
  body: string;
  /** Short content hash; the page links `?v=<version>` so a deploy never pairs new HTML with a cached old asset. */
  version: string;
}

function loadAsset(name: CheckoutAssetName, contentType: string): StaticAsset {
  const body = readFileSync(join(__dirname, 'assets', name), 'utf8');
  const version = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { contentType, body, version };
}

/** The hosted page's only assets (the icon is text too: SVG), served by the gateway under the page's `assetBase` (e.g. `/c/assets/checkout.js`). */
export const checkoutAssets: Readonly<Record<CheckoutAssetName, StaticAsset>> = {
  'checkout.css': loadAsset('checkout.css', 'text/css; charset=utf-8'),
  'checkout.js': loadAsset('checkout.js', 'text/javascript; charset=utf-8'),
  'favicon.svg': loadAsset('favicon.svg', 'image/svg+xml; charset=utf-8'),
};

/** Send with every hosted page: nothing inline, nothing third-party, the page cannot be framed. */
export const CHECKOUT_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');
