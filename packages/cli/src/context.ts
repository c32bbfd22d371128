import { InvalidArgumentError, type Command } from 'commander';
import { Gateway, GatewayConnectionError, GatewayError } from '@gateway/sdk';
import { DEVELOPMENT_ADMIN_TOKEN, isLoopbackUrl, type CliEnvironment } from './config';
import { Output, type Stream } from './output';

/** A mistake in how the command was called: exit status 64 (EX_USAGE), as the first operator CLI had it. */
export class UsageError extends Error {}

/** A command that said what went wrong itself and ends with this exit status. */
export class CommandExit extends Error {
  constructor(readonly status: number) {
    super(`exit status ${status}`);
  }
}

export interface Io {
  stdout: Stream;
  stderr: Stream;
  env: CliEnvironment;
}

interface Globals {
  baseUrl: string;
  apiKey?: string;
  adminToken?: string;
  json?: boolean;
  field?: string;
  color: boolean;
}

/** What a command's action works with: its output, the merchant client, the operator API. */
export interface Context {
  output: Output;
  baseUrl: string;
  /** The business's API key (--api-key or GATEWAY_API_KEY); a UsageError when there is none. */
  apiKey(): string;
  /** The SDK client for the business whose key was given. */
  gateway(): Gateway;
  /** One call to the operator API (/admin/v1) with the admin token (and `headers`, an Idempotency-Key). */
  admin(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<Record<string, unknown>>;
}

export function contextFor(command: Command, io: Io): Context {
  const globals = command.optsWithGlobals<Globals>();
  const baseUrl = globals.baseUrl.replace(/\/+$/, '');
  const output = new Output({
    stdout: io.stdout,
    stderr: io.stderr,
    json: Boolean(globals.json),
    color: globals.color === false ? 'never' : io.env.color,
    field: globals.field,
  });
  let gateway: Gateway | undefined;
  const apiKey = () => {
    const key = globals.apiKey ?? io.env.apiKey;
    if (!key) throw new UsageError('this command needs an API key: --api-key or GATEWAY_API_KEY');
    return key;
  };
  return {
    output,
    baseUrl,
    apiKey,
    gateway() {
      gateway ??= new Gateway({ apiKey: apiKey(), baseUrl });
      return gateway;
    },
    async admin(method, path, body, headers = {}) {
      const token = adminToken(globals.adminToken ?? io.env.adminToken, baseUrl);
      let response: Response;
      try {
        response = await fetch(`${baseUrl}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...headers,
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      } catch (err) {
        const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
        throw new GatewayConnectionError(`${method} ${baseUrl}${path}: no answer${cause}`, null, {
          cause: err,
        });
      }
      const text = await response.text();
      if (response.ok) return JSON.parse(text) as Record<string, unknown>;
      throw adminError(response, text);
    },
  };
}

/**
 * The token given, else the development token, which only a sandbox gateway on this machine accepts: it is never
 * sent anywhere else (a gateway elsewhere would have it in its logs, or be someone else's).
 */
function adminToken(given: string | undefined, baseUrl: string): string {
  if (given) return given;
  if (isLoopbackUrl(baseUrl)) return DEVELOPMENT_ADMIN_TOKEN;
  throw new UsageError(
    `admin commands against ${new URL(baseUrl).host} need the operator token: --admin-token or ADMIN_TOKEN ` +
      '(the development token is only sent to a gateway on localhost)',
  );
}

/** The operator API answers errors in the contract's shape: the same GatewayError as the merchant calls. */
function adminError(response: Response, text: string): GatewayError {
  let code = `HTTP_${response.status}`;
  let message = text.slice(0, 200);
  try {
    const { error } = JSON.parse(text) as { error: { code: string; message: string } };
    ({ code, message } = error);
  } catch {
    // Not JSON (a proxy's page): its status and text say what happened.
  }
  return new GatewayError(code, message, {
    status: response.status,
    requestId: response.headers.get('x-request-id'),
    retryAfterSeconds: null,
    idempotencyKey: null,
  });
}

/** Wraps a command's action: it gets the Context, then the command's arguments and options as commander passes them. */
export type Act = (
  action: (context: Context, ...args: never[]) => Promise<void>,
) => (...args: unknown[]) => Promise<void>;

/** A sandbox business's keys start so (production's are sk_live_). */
export const SANDBOX_KEY_PREFIX = 'sk_test_';

/**
 * Refuses, before anything is sent, a key that is not a sandbox business's: for commands that only make sense in the
 * sandbox and would do real harm with a production key (`consequence` says which).
 */
export function refuseUnlessSandboxKey(apiKey: string, command: string, consequence: string): void {
  if (apiKey.startsWith(SANDBOX_KEY_PREFIX)) return;
  const kind = apiKey.startsWith('sk_live_') ? 'a production key (sk_live_...)' : 'not a sandbox key';
  throw new UsageError(
    `${command} only runs with a sandbox business's API key (${SANDBOX_KEY_PREFIX}...); this is ${kind}, ` +
      `with which it would ${consequence}. Nothing was sent.`,
  );
}

/** Parser of a whole-number argument or option (centavos, basis points, limits). */
export function wholeNumber(text: string): number {
  if (!/^\d+$/.test(text)) throw new InvalidArgumentError('a whole number is expected.');
  return Number(text);
}

/** A whole number that may be negative (`-500`). */
export function signedWholeNumber(text: string): number {
  if (!/^-?\d+$/.test(text)) throw new InvalidArgumentError('a whole number is expected (negative too).');
  return Number(text);
}
