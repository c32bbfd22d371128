import { InvalidArgumentError, type Command } from 'commander';
import { Gateway, GatewayConnectionError, GatewayError } from '@gateway/sdk';
import type { CliEnvironment } from './config';
import { Output, type Stream } from './output';

/** A mistake in how the command was called: exit status 64 (EX_USAGE), as the first operator CLI had it. */
export class UsageError extends Error {}

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
  color: boolean;
}

/** What a command's action works with: its output, the merchant client, the operator API. */
export interface Context {
  output: Output;
  baseUrl: string;
  /** The SDK client for the business whose key was given. */
  gateway(): Gateway;
  /** One call to the operator API (/admin/v1) with the admin token. */
  admin(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    body?: unknown,
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
  });
  let gateway: Gateway | undefined;
  return {
    output,
    baseUrl,
    gateway() {
      const apiKey = globals.apiKey ?? io.env.apiKey;
      if (!apiKey) throw new UsageError('this command needs an API key: --api-key or GATEWAY_API_KEY');
      gateway ??= new Gateway({ apiKey, baseUrl });
      return gateway;
    },
    async admin(method, path, body) {
      let response: Response;
      try {
        response = await fetch(`${baseUrl}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${globals.adminToken ?? io.env.adminToken}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
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

/** Parser of a whole-number argument or option (centavos, basis points, limits). */
export function wholeNumber(text: string): number {
  if (!/^\d+$/.test(text)) throw new InvalidArgumentError('a whole number is expected.');
  return Number(text);
}
