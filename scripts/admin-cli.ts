// Operator CLI over the gateway's /admin/v1 API: `pnpm admin <command> ...` with GATEWAY_URL and ADMIN_TOKEN.
import { DEVELOPMENT_ADMIN_TOKEN } from '../services/api-gateway/src/config';

const USAGE = `usage: pnpm admin <command> [arguments]

  create-business NAME                         a business and its first API key
  issue-key BUSINESS_ID                        a further API key (rotation)
  revoke-key KEY_PREFIX                        revoke a key (stops working within 5 s)
  set-fee BUSINESS_ID METHOD BPS FIXED         fee rule: METHOD pix|crypto, BPS basis points, FIXED centavos
  create-product BUSINESS_ID NAME PRICE [DESC] a product; PRICE in centavos
  show-business BUSINESS_ID                    a business and its keys
  parked                                       parked messages (failed for good or past the retry bound), by queue
  redrive-parked [QUEUE]                       move parked messages back to their queue (e.g. payment.events), or all

environment: GATEWAY_URL (default http://localhost:3000), ADMIN_TOKEN (default: the sandbox's development token)`;

interface Call {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  body?: unknown;
}

function integer(text: string | undefined, name: string): number {
  if (text === undefined || !/^\d+$/.test(text)) throw new UsageError(`${name} must be a whole number`);
  return Number(text);
}

class UsageError extends Error {}

function required(args: string[], count: number): string[] {
  if (args.length < count) throw new UsageError('missing arguments');
  return args;
}

function callFor(command: string | undefined, args: string[]): Call {
  const id = (text: string | undefined) => encodeURIComponent(text ?? '');
  switch (command) {
    case 'create-business':
      required(args, 1);
      return { method: 'POST', path: '/admin/v1/businesses', body: { name: args.join(' ') } };
    case 'issue-key':
      required(args, 1);
      return { method: 'POST', path: `/admin/v1/businesses/${id(args[0])}/api-keys` };
    case 'revoke-key':
      required(args, 1);
      return { method: 'DELETE', path: `/admin/v1/api-keys/${id(args[0])}` };
    case 'set-fee':
      required(args, 4);
      return {
        method: 'PUT',
        path: `/admin/v1/businesses/${id(args[0])}/fee-rules/${id(args[1])}`,
        body: { percent_bps: integer(args[2], 'BPS'), fixed_centavos: integer(args[3], 'FIXED') },
      };
    case 'create-product':
      required(args, 3);
      return {
        method: 'POST',
        path: `/admin/v1/businesses/${id(args[0])}/products`,
        body: {
          name: args[1],
          price: integer(args[2], 'PRICE'),
          ...(args[3] !== undefined ? { description: args.slice(3).join(' ') } : {}),
        },
      };
    case 'show-business':
      required(args, 1);
      return { method: 'GET', path: `/admin/v1/businesses/${id(args[0])}` };
    case 'parked':
      return { method: 'GET', path: '/admin/v1/parked' };
    case 'redrive-parked':
      return {
        method: 'POST',
        path: '/admin/v1/parked/redrive',
        body: args[0] !== undefined ? { queue: args[0] } : {},
      };
    default:
      throw new UsageError(command ? `unknown command ${command}` : 'no command');
  }
}

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  let call: Call;
  try {
    call = callFor(command, args);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(`${err.message}\n\n${USAGE}`);
    return 64;
  }
  const baseUrl = (process.env.GATEWAY_URL ?? 'http://localhost:3000').replace(/\/+$/, '');
  const token = process.env.ADMIN_TOKEN ?? DEVELOPMENT_ADMIN_TOKEN;
  const response = await fetch(`${baseUrl}${call.path}`, {
    method: call.method,
    headers: {
      Authorization: `Bearer ${token}`,
      ...(call.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    },
    body: call.body !== undefined ? JSON.stringify(call.body) : undefined,
  });
  const text = await response.text();
  let output = text;
  try {
    output = JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    // Not JSON (a proxy's error page, say): print it as it came.
  }
  if (response.ok) {
    console.log(output);
    return 0;
  }
  console.error(`HTTP ${response.status}\n${output}`);
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`request failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
