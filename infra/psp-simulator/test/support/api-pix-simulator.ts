import { createLogger } from '@gateway/observability';
import { createTestDatabase } from '@gateway/testkit-core';
import { createPspSimulator } from '../../src';
import { dateOf, dayOf } from '../../src/business-days';
import { type ApiPixSpec } from './api-pix-spec';

/** The Pix key of the account the simulators of these tests keep, and another account's (books shared by two). */
export const PIX_KEY = '5f84a4c5-c5cb-4599-9f13-7eb4d419dacc';
export const OTHER_KEY = '7d9f0335-8dcc-4054-9bf9-0dbd61d36906';

const silent = createLogger('psp-simulator-test', 'silent');

let txids = 0;
/** A txid of the test's own (26 to 35 alphanumerics). */
export function newTxid(): string {
  txids += 1;
  return `simtest0${String(Date.now())}n${String(txids).padStart(4, '0')}`.padEnd(30, 'x');
}

/** `n` days after `date` (YYYY-MM-DD). */
export function plus(date: string, n: number): string {
  return dateOf(dayOf(date)! + n);
}

/** Books of the test's own, dropped after it: for simulators that share them (a restart, two accounts). */
export async function booksForThisTest(
  afterThisTest: (close: () => Promise<unknown>) => void,
): Promise<string> {
  const books = await createTestDatabase();
  afterThisTest(() => books.drop());
  return books.url;
}

/**
 * A PSP simulator for one test, on books of its own (or `books` given), with its key and client; closed (and its own
 * books dropped) after the test through the test file's `afterThisTest`. It answers as a client of API Pix sees it:
 * `token(scope?)` a new access token; `call` an API Pix call, its answer (`violations`) and its request
 * (`requestViolations`) checked against the document `spec`; `sandbox` a sandbox POST, or GET (not API Pix: nothing to check
 * it against); `today` and `advance(dias)` the simulator's clock.
 */
export async function startApiPixSimulator(
  spec: ApiPixSpec,
  afterThisTest: (close: () => Promise<unknown>) => void,
  options: { books?: string; pixKey?: string; clientId?: string } = {},
) {
  const url = options.books ?? (await booksForThisTest(afterThisTest));
  const clientId = options.clientId ?? 'c';
  const running = await createPspSimulator({
    databaseUrl: url,
    clientId,
    clientSecret: 's',
    pixKey: options.pixKey ?? PIX_KEY,
    logger: silent,
    callbackRetryDelaysMs: [50],
  }).start(0);
  afterThisTest(() => running.close());
  const token = async (scope?: string) => {
    const response = await fetch(`${running.url}/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${clientId}:s`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: `grant_type=client_credentials${scope === undefined ? '' : `&scope=${encodeURIComponent(scope)}`}`,
    });
    return ((await response.json()) as { access_token: string }).access_token;
  };
  const bearer = await token();
  const call = async (method: string, path: string, body?: unknown, accessToken = bearer, raw?: string) => {
    const text = raw ?? (body === undefined ? undefined : JSON.stringify(body));
    const response = await fetch(`${running.url}/v2${path}`, {
      method,
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
      body: text,
    });
    const answer = await response.text();
    const reply = {
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      body: answer,
    };
    const [pathOnly] = path.split('?');
    // `/rec/{idRec}` reads like the payload location `/rec/{recUrlAccessToken}`: named.
    const template = /^\/rec\/[^/]+$/.test(pathOnly!) ? '/rec/{idRec}' : undefined;
    return {
      ...reply,
      json: answer ? JSON.parse(answer) : undefined,
      violations: spec.validateResponse(method, pathOnly!, reply, template),
      requestViolations: spec.validateRequest(method, pathOnly!, text ?? '', template),
    };
  };
  const sandbox = async (path: string, body: unknown = {}, method: 'POST' | 'GET' = 'POST') => {
    const response = await fetch(`${running.url}/v2${path}`, {
      method,
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
      ...(method === 'GET' ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: (await response.json()) as any };
  };
  const today = async () => ((await call('GET', '/sandbox/relogio')).json as { hoje: string }).hoje;
  const advance = (dias: number) => sandbox('/sandbox/relogio/avancar', { dias });
  return { running, token, call, sandbox, today, advance };
}
