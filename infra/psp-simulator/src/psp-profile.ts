import { timingSafeEqual } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { TLSSocket } from 'node:tls';
import { type Request, type RequestHandler } from 'express';
import { type PspProfile, type PspProfileSetting } from '@gateway/contracts';
import { sendProblem } from './problem';

/** The values the simulated bank expects for a profile's extra headers and query parameters. */
export type ProfileValues = Partial<Record<PspProfileSetting, string>>;

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

/**
 * Whether a token request authenticates the way the profile's bank takes credentials (RFC 6749 section 2.3.1): HTTP
 * Basic, `client_id`/`client_secret` in the body, or `client_id` alone, the client certificate vouching for it (served
 * over TLS, a request without a certificate its CA took is refused; over plain HTTP, in tests, there is none to check).
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
      return (
        typeof form.client_id === 'string' &&
        safeEqual(form.client_id, credentials.clientId) &&
        clientCertificateVouches(req)
      );
  }
}

/** Whether the request's body is in the profile's token body format (form-encoded, or JSON for Efí). */
export function tokenBodyAccepted(profile: PspProfile, req: Request): boolean {
  return (
    req.is(profile.tokenBody === 'json' ? 'application/json' : 'application/x-www-form-urlencoded') !== false
  );
}

/** Over TLS, whether the client presented a certificate the server's CA took; over plain HTTP there is none to ask. */
function clientCertificateVouches(req: Request): boolean {
  const socket = req.socket;
  if (!(socket instanceof TLSSocket)) return true;
  return socket.authorized && Object.keys(socket.getPeerCertificate()).length > 0;
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

/** What Efí's check of a webhook URL found; only `requires-certificate` lets the URL be registered. */
export type WebhookProbe =
  'requires-certificate' | 'accepts-without-certificate' | 'untrusted-server-certificate' | 'unreachable';

/**
 * The TLS of the check: `ca` the receiver's server certificate is checked against (else the system's), and the bank's
 * own client certificate (`cert`, `key`), presented only to confirm that a TLS 1.2 handshake failed for the missing one.
 */
export interface WebhookProbeTls {
  ca?: string;
  cert?: string;
  key?: string;
}

/**
 * Efí's check of a webhook URL before registering it (https://dev.efipay.com.br/docs/api-pix/webhooks/): a request
 * without a client certificate must be refused. Refused means the receiver ended the handshake for the missing
 * certificate (TLS 1.3's "certificate required" alert; TLS 1.2's "handshake failure" alert when the same handshake with
 * the bank's certificate goes through), or an HTTPS answer 403, which Efí's own reference receiver gives
 * (https://github.com/efipay/mtls-webhook: `ssl_verify_client optional`, then 403). Anything else proves nothing and the
 * registration is refused (Efí's `webhook_invalido`): an answer of another status, a plain HTTP URL, a server
 * certificate the check does not trust (our side ended the handshake, before the receiver could ask for anything), a
 * timeout, an error of another kind.
 */
export async function probeWebhook(
  webhookUrl: string,
  tls: WebhookProbeTls,
  timeoutMs = 5000,
): Promise<WebhookProbe> {
  const first = await postWithoutBody(webhookUrl, { ca: tls.ca }, timeoutMs);
  if (typeof first === 'number')
    return first === 403 && webhookUrl.startsWith('https:')
      ? 'requires-certificate'
      : 'accepts-without-certificate';
  if (first.code === 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED') return 'requires-certificate';
  if (SERVER_CERTIFICATE_UNTRUSTED.has(first.code)) return 'untrusted-server-certificate';
  if (/\bSSL alert number 40\b/.test(first.message) && tls.cert !== undefined && tls.key !== undefined) {
    const withCertificate = await postWithoutBody(webhookUrl, tls, timeoutMs);
    if (typeof withCertificate === 'number') return 'requires-certificate';
  }
  return 'unreachable';
}

/** Node's own refusals of a server certificate. */
const SERVER_CERTIFICATE_UNTRUSTED = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/**
 * `POST {}` to the URL on a connection of its own (node's client, which reports the TLS alert that ended a handshake):
 * the answer's status, or why there was none.
 */
function postWithoutBody(
  url: string,
  tls: WebhookProbeTls,
  timeoutMs: number,
): Promise<number | { code: string; message: string }> {
  return new Promise((resolve) => {
    const send = url.startsWith('https:') ? httpsRequest : httpRequest;
    const req = send(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': 2 },
        agent: false,
        ...tls,
        timeout: timeoutMs,
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('timeout', () => req.destroy(Object.assign(new Error('no answer in time'), { code: 'TIMEOUT' })));
    req.on('error', (error: Error & { code?: unknown }) =>
      resolve({ code: typeof error.code === 'string' ? error.code : '', message: error.message }),
    );
    req.end('{}');
  });
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
