import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface ApiReferenceAsset {
  /** The directory of the file (its path from there is checked for dotfiles, not the whole path). */
  root: string;
  file: string;
  contentType: string;
  /** The page links `?v=<version>`, so a deploy never pairs a new page with a cached old asset. */
  version: string;
}

/** Swagger UI's prebuilt browser bundle, served from node_modules by this process (no CDN). */
const swaggerUiDist = dirname(require.resolve('swagger-ui-dist/package.json'));
const swaggerUiVersion = (
  JSON.parse(readFileSync(join(swaggerUiDist, 'package.json'), 'utf8')) as { version: string }
).version;

const fromSwaggerUi = (file: string, contentType: string): ApiReferenceAsset => ({
  root: swaggerUiDist,
  file,
  contentType,
  version: swaggerUiVersion,
});

function ownAsset(file: string, contentType: string): ApiReferenceAsset {
  const root = join(__dirname, 'assets');
  const version = createHash('sha256')
    .update(readFileSync(join(root, file)))
    .digest('hex')
    .slice(0, 12);
  return { root, file, contentType, version };
}

/** Every file the reference page loads; nothing else under the package is reachable. */
export const apiReferenceAssets = {
  'swagger-ui.css': fromSwaggerUi('swagger-ui.css', 'text/css; charset=utf-8'),
  'swagger-ui-bundle.js': fromSwaggerUi('swagger-ui-bundle.js', 'text/javascript; charset=utf-8'),
  'favicon-32x32.png': fromSwaggerUi('favicon-32x32.png', 'image/png'),
  'api-reference.js': ownAsset('api-reference.js', 'text/javascript; charset=utf-8'),
} as const satisfies Record<string, ApiReferenceAsset>;

export type ApiReferenceAssetName = keyof typeof apiReferenceAssets;
export const apiReferenceAssetNames = Object.keys(apiReferenceAssets) as ApiReferenceAssetName[];

/**
 * Swagger UI needs no inline script or style and no third party: same-origin scripts, styles, fetches (the document and
 * "try it out") and images (its icons are `data:` SVGs in its stylesheet). The page cannot be framed.
 */
export const API_REFERENCE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
