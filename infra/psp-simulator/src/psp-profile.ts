import { timingSafeEqual } from 'node:crypto';
import { type Request, type RequestHandler } from 'express';
import { type PspProfile, type PspProfileSetting } from '@gateway/contracts';
import { type Dispatcher, request } from 'undici';
import { sendProblem } from './problem';

/** The values the simulated bank expects for a profile's extra headers and query parameters. */
export type ProfileValues = Partial<Record<PspProfileSetting, string>>;

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

/**
 * Whether a token request authenticates the way the profile's bank takes credentials (RFC 6749 section 2.3.1): HTTP
 * Basic, `client_id`/`client_secret` in the form body, or `client_id` alone (the client certificate vouching for it).
 * A request in another style is refused as the bank would refuse it, even with the right credentials.
 */
export function tokenRequestAuthenticates(
  profile: PspProfile,
  credentials: ClientCredentials,
  req: Request,
): boolean {
  const form = (req.body ?? {}) as Record<string, unknown>;
  switch (profile.tokenRequest) {
    case 'basic': {
      const given = basicCredentials(req.get('authorization'));
      return (
        given !== undefined &&
        safeEqual(given.clientId, credentials.clientId) &&
        safeEqual(given.clientSecret, credentials.clientSecret)
      );
    }
    case 'form-body':
      return (
        typeof form.client_id === 'string' &&
        typeof form.client_secret === 'string' &&
        safeEqual(form.client_id, credentials.clientId) &&
        safeEqual(form.client_secret, credentials.clientSecret)
      );
    case 'client-id-only':
      return typeof form.client_id === 'string' && safeEqual(form.client_id, credentials.clientId);
  }
}

/** The token URL's query parameters the profile requires (Santander's `grant_type`) that the request lacks. */
export function missingTokenQuery(profile: PspProfile, req: Request): string[] {
  return Object.entries(profile.tokenQuery)
    .filter(([name, value]) => req.query[name] !== value)
    .map(([name]) => name);
}

/**
 * Refuses an API Pix call without the profile's extra query parameters (BB's `gw-dev-app-key`: 401) or headers
 * (Inter's `x-conta-corrente`: 400), before the token is even looked at; the statuses are the simulator's choice, the
 * banks' own were not found in what could be read. A parameter checked is taken out of the query, so the operations
 * (the lists refuse filters they do not know) see the API Pix query alone.
 */
export function requireProfileExtras(profile: PspProfile, values: ProfileValues): RequestHandler {
  return (req, res, next) => {
    for (const [name, setting] of Object.entries(profile.extraQuery)) {
      const given = req.query[name];
      if (typeof given !== 'string' || !matches(given, values[setting])) {
        sendProblem(res, 401, 'AcessoNegado', 'Acesso negado.', `Parâmetro ${name} ausente ou inválido.`);
        return;
      }
      delete (req.query as Record<string, unknown>)[name];
    }
    for (const [name, setting] of Object.entries(profile.extraHeaders)) {
      if (!matches(req.get(name), values[setting])) {
        sendProblem(
          res,
          400,
          'RequisicaoInvalida',
          'Requisição inválida.',
          `Cabeçalho ${name} ausente ou inválido.`,
        );
        return;
      }
    }
    next();
  };
}

/**
 * Efí's check of a webhook URL before registering it: a request without a client certificate must be refused in the
 * TLS handshake. A receiver that answers it, whatever the status, does not require mutual TLS, and one that cannot be
 * reached is no receiver: either way the registration is refused (Efí's `webhook_invalido`). What the receiver's server
 * certificate is checked against is `probe`'s business.
 */
export async function probeWebhook(
  webhookUrl: string,
  probe: Dispatcher,
): Promise<'accepts-without-certificate' | 'requires-certificate' | 'unreachable'> {
  try {
    const response = await request(webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
      dispatcher: probe,
      signal: AbortSignal.timeout(5000),
    });
    await response.body.dump();
    return 'accepts-without-certificate';
  } catch (error) {
    const code = errorCode(error) ?? errorCode((error as { cause?: unknown }).cause);
    return code !== undefined && UNREACHABLE.has(code) ? 'unreachable' : 'requires-certificate';
  }
}

const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

function basicCredentials(header: string | undefined): ClientCredentials | undefined {
  const encoded = /^Basic (.+)$/i.exec(header ?? '')?.[1];
  if (encoded === undefined) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const separator = decoded.indexOf(':');
  if (separator < 0) return undefined;
  return {
    clientId: decodeURIComponent(decoded.slice(0, separator)),
    clientSecret: decodeURIComponent(decoded.slice(separator + 1)),
  };
}

function matches(given: string | undefined, expected: string | undefined): boolean {
  return given !== undefined && expected !== undefined && safeEqual(given, expected);
}

function safeEqual(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
