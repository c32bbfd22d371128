import { promises as dns, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Agent, buildConnector, request } from 'undici';
import { DEFAULT_WEBHOOK_TIMEOUT_MS } from '@gateway/config';
import { untraced } from '@gateway/observability';
import { type DeliveryAttemptResult, type DeliveryErrorKind } from '../domain/delivery-outcome';
import { isPublicAddress } from '../domain/ip-policy';

export type HostResolver = (hostname: string) => Promise<readonly LookupAddress[]>;

export interface WebhookSenderOptions {
  /** Sandbox only: lets deliveries reach private, loopback and link-local addresses. */
  allowPrivateTargets: boolean;
  /** Whole attempt: connect, headers and body. */
  timeoutMs?: number;
  maxConnectionsPerOrigin: number;
  userAgent: string;
  /** Defaults to the system resolver (dns.lookup, all addresses). */
  lookup?: HostResolver;
  /**
   * PEM certificates to trust INSTEAD of Node's default store (bundled roots + NODE_EXTRA_CA_CERTS).
   * For tests; operators add a CA with NODE_EXTRA_CA_CERTS.
   */
  ca?: string | readonly string[];
}

export interface WebhookRequest {
  url: string;
  headers: Readonly<Record<string, string>>;
  body: Buffer;
}

export interface WebhookSender {
  send(request: WebhookRequest): Promise<DeliveryAttemptResult>;
  /** Closes pooled keep-alive connections. */
  close(): Promise<void>;
}

const BODY_SNIPPET_BYTES = 2_048;
const TIMEOUT_CODES: ReadonlySet<string> = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);
const DNS_CODES: ReadonlySet<string> = new Set(['ENOTFOUND', 'EAI_AGAIN', 'ENODATA']);
// Node reports certificate verification failures with OpenSSL's verify codes, which have no common prefix.
const TLS_CODE = /^ERR_(TLS|SSL)_|CERT|SIGNATURE/;

class SsrfRefusedError extends Error {
  constructor(hostname: string, address: string) {
    super(`refused to deliver to ${hostname}: ${address} is not a public address`);
    this.name = 'SsrfRefusedError';
  }
}

class InvalidWebhookUrlError extends Error {}

export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const timeoutMs = options.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  const connectViaCheckedLookup = buildConnector({
    timeout: timeoutMs,
    lookup: checkedLookup(options.lookup ?? resolveAll, options.allowPrivateTargets),
    ...(options.ca === undefined ? {} : { ca: [options.ca].flat() }),
  });
  const agent = new Agent({
    connections: options.maxConnectionsPerOrigin,
    connect(connectOptions, callback) {
      // Node skips the lookup for IP literals, so those are checked here.
      const { hostname } = connectOptions;
      if (!options.allowPrivateTargets && isIP(hostname) !== 0 && !isPublicAddress(hostname)) {
        callback(new SsrfRefusedError(hostname, hostname), null);
        return;
      }
      connectViaCheckedLookup(connectOptions, callback);
    },
  });

  return {
    async send(webhookRequest: WebhookRequest): Promise<DeliveryAttemptResult> {
      const startedAt = performance.now();
      const latencyMs = (): number => Math.round(performance.now() - startedAt);
      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(), timeoutMs);
      try {
        assertHttps(webhookRequest.url);
        // A merchant's endpoint is a third party: no trace header goes to it (the attempt's span is the record).
        const response = await untraced(() =>
          request(webhookRequest.url, {
            dispatcher: agent,
            method: 'POST',
            headers: {
              ...webhookRequest.headers,
              'content-type': 'application/json',
              'user-agent': options.userAgent,
            },
            body: webhookRequest.body,
            signal: abort.signal,
          }),
        );
        const bodySnippet = await readSnippet(response.body);
        return {
          kind: 'response',
          status: response.statusCode,
          headers: response.headers,
          bodySnippet,
          latencyMs: latencyMs(),
        };
      } catch (error) {
        return {
          kind: 'error',
          error: abort.signal.aborted ? 'timeout' : classifyError(error),
          message: error instanceof Error ? error.message : String(error),
          latencyMs: latencyMs(),
        };
      } finally {
        clearTimeout(timer);
      }
    },
    close: () => agent.close(),
  };
}

async function resolveAll(hostname: string): Promise<readonly LookupAddress[]> {
  return dns.lookup(hostname, { all: true });
}

/**
 * Resolves once, refuses the host when ANY address is non-public, and hands the checked addresses to the socket,
 * so a second DNS answer (rebinding) can never redirect the connection.
 */
function checkedLookup(resolve: HostResolver, allowPrivateTargets: boolean): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const refused = allowPrivateTargets ? undefined : addresses.find((a) => !isPublicAddress(a.address));
        if (refused !== undefined) {
          callback(new SsrfRefusedError(hostname, refused.address), '');
          return;
        }
        const family = familyNumber(lookupOptions.family);
        const usable = addresses.filter((a) => family === 0 || a.family === family);
        const [first] = usable;
        if (first === undefined) {
          callback(Object.assign(new Error(`no address found for ${hostname}`), { code: 'ENOTFOUND' }), '');
        } else if (lookupOptions.all === true) {
          callback(null, [...usable]);
        } else {
          callback(null, first.address, first.family);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
}

function familyNumber(family: number | 'IPv4' | 'IPv6' | undefined): number {
  if (family === 'IPv4') return 4;
  if (family === 'IPv6') return 6;
  return family ?? 0;
}

function assertHttps(url: string): void {
  if (!URL.canParse(url) || new URL(url).protocol !== 'https:') {
    throw new InvalidWebhookUrlError(`webhook URL must be https: ${url}`);
  }
}

async function readSnippet(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  // Leaving the loop early destroys the stream: a receiver cannot make us download an unbounded body.
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= BODY_SNIPPET_BYTES) break;
  }
  return Buffer.concat(chunks).subarray(0, BODY_SNIPPET_BYTES).toString('utf8');
}

function classifyError(error: unknown): DeliveryErrorKind {
  if (error instanceof SsrfRefusedError) return 'ssrf_refused';
  if (error instanceof InvalidWebhookUrlError) return 'invalid_url';
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? '';
  if (TIMEOUT_CODES.has(code)) return 'timeout';
  if (DNS_CODES.has(code)) return 'dns';
  if (TLS_CODE.test(code)) return 'tls';
  return 'connection';
}
