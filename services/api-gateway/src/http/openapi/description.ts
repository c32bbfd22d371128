import {
  EVENT_RETENTION_DAYS,
  MAX_AMOUNT_CENTAVOS,
  MAX_JSON_DEPTH,
  MIN_AMOUNT_CENTAVOS,
  PAGE_LIMIT_DEFAULT,
  PAGE_LIMIT_MAX,
  TEXT_LIMITS,
  WEBHOOK_SECRET_OVERLAP_HOURS,
  apiKeyScopes,
  errorCodes,
} from '@gateway/contracts';
import { errorCatalog } from '@gateway/http-errors';
import { API_KEY_HEADER } from '../identity';
import { IDEMPOTENCY_KEY_HEADER, REPLAYED_HEADER } from '../idempotency';
import { BODY_LIMIT } from '../input-bounds';
import { RATE_LIMIT_HEADERS } from '../rate-limit';

/** Requests per rolling minute, as this gateway is configured. */
export interface RateLimits {
  api: number;
  /** Per key of the merchant dashboard (marked so by the operator API). */
  dashboard: number;
  admin: number;
  checkout: number;
}

/** The document's introduction (Markdown): the rules every route shares, from the constants that enforce them. */
export function describeApi(rateLimits: RateLimits): string {
  const errorRows = errorCodes.map(
    (code) => `| \`${code}\` | ${errorCatalog[code].status} | ${errorCatalog[code].message} |`,
  );
  const textLimits = Object.entries(TEXT_LIMITS)
    .map(([field, limit]) => `${field} ${limit}`)
    .join(', ');
  return [
    'A Brazilian payment gateway: PIX and stablecoins (USDC, USDT, EURC on Solana), hosted checkout, signed webhooks.',
    '',
    '## Conventions',
    '',
    `- **Authentication**: every \`/v1\` route takes the business's API key in \`${API_KEY_HEADER}\` (\`sk_test_...\` in ` +
      'sandbox, `sk_live_...` in production); the operator API `/admin/v1` takes `Authorization: Bearer <ADMIN_TOKEN>`. ' +
      "Another business's resource is `404 NOT_FOUND` (only deleting another business's webhook is `403 FORBIDDEN`).",
    `- **Scopes**: a key may be limited to scopes (${apiKeyScopes.map((scope) => `\`${scope}\``).join(', ')}); ` +
      'each operation names the one it needs (`x-required-scope`), a `:write` scope covers its `:read` one, and an ' +
      "operation outside the key's scopes is `403 FORBIDDEN` naming the scope, with nothing done. A key issued " +
      'without scopes has every one.',
    '- **Money**: request amounts are integer centavos (5000 = R$ 50,00), from ' +
      `${MIN_AMOUNT_CENTAVOS} to ${MAX_AMOUNT_CENTAVOS}; response amounts are BRL numbers (50.0).`,
    '- **Bodies**: JSON objects (`Content-Type: application/json`), at most ' +
      `${BODY_LIMIT.replace('kb', ' KiB')} and ${MAX_JSON_DEPTH} levels deep, no NUL character; unknown fields are ` +
      `ignored. Free texts are bounded (characters): ${textLimits}.`,
    "- **Path ids** without their resource's shape (`pay_` + 24–64 url-safe characters, ...) are `404 NOT_FOUND`.",
    `- **Pagination**: lists answer \`{"data": [...], "has_more": bool}\`, newest first; \`limit\` 1–${PAGE_LIMIT_MAX} ` +
      `(default ${PAGE_LIMIT_DEFAULT}) and \`starting_after\` = the last id of the previous page.`,
    `- **Idempotency**: every \`/v1\` POST takes an optional \`${IDEMPOTENCY_KEY_HEADER}\`: the same key and body within ` +
      `24 h answer the first response again, byte for byte (with \`${REPLAYED_HEADER}: true\`); a different body is ` +
      '`409 IDEMPOTENCY_CONFLICT`.',
    `- **Rate limits** (rolling minute): ${rateLimits.api} requests per API key on \`/v1\` (per IP without a valid key; ` +
      `${rateLimits.dashboard} for the key the merchant dashboard holds, which only the operator marks), ` +
      `${rateLimits.admin} per IP on \`/admin/v1\`, ${rateLimits.checkout} per buyer IP on the hosted checkout. ` +
      `Counted answers carry \`${RATE_LIMIT_HEADERS.limit}\`, \`${RATE_LIMIT_HEADERS.remaining}\` and ` +
      `\`${RATE_LIMIT_HEADERS.reset}\`; a \`429 RATE_LIMITED\` adds \`Retry-After\` (seconds). ` +
      '`/healthz`, `/readyz`, `/metrics`, `/openapi.json` and `/docs` need no key and are not limited.',
    `- **Events**: kept ${EVENT_RETENTION_DAYS} days for \`GET /v1/events\` and delivered to webhooks (see ` +
      '`webhooks`): at least once (dedupe on `webhook-id`), no ordering promise, a 2xx within 10 s is success, ' +
      'otherwise retried with backoff for 3 days. Each delivery is signed: `x-service-signature` (hex HMAC-SHA256 ' +
      'of the raw body with the secret) and the Standard Webhooks headers `webhook-id`, `webhook-timestamp`, ' +
      `\`webhook-signature\`; after a secret rotation both secrets sign for ${WEBHOOK_SECRET_OVERLAP_HOURS} hours.`,
    '',
    '## Errors',
    '',
    'Every error is `{"error": {"code": "...", "message": "<Portuguese>"}}` with `Content-Type: application/json`. ' +
      'A `503` always carries `Retry-After`; the request was not applied, or is applied once when retried with the ' +
      'same `Idempotency-Key`.',
    '',
    '| code | status | default message |',
    '|---|---|---|',
    ...errorRows,
  ].join('\n');
}
