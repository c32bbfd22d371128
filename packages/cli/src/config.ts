import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Sent only to a gateway on a loopback address (isLoopbackUrl), never elsewhere. */
export { DEVELOPMENT_ADMIN_TOKEN } from '@gateway/config';

/** This machine's own addresses: the only gateway the development token is sent to. */
const LOOPBACK_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

export function isLoopbackUrl(url: string): boolean {
  try {
    return LOOPBACK_HOSTNAMES.has(new URL(url).hostname.toLowerCase());
  } catch {
    return false;
  }
}

/** Where `npm start` leaves, in the repository it runs from, this start's gateway URL (next to the demo business). */
const LOCAL_STACK_FILE = join('.run', 'demo-business.json');

/**
 * The gateway of the stack `npm start` runs from `dir`, when it left its URL there and that URL is on this machine.
 * Anything else (no file, an unreadable one, another host) is ignored: without GATEWAY_URL the CLI only ever talks to
 * this machine, never to a host nobody named.
 */
export function localStackUrl(dir: string): string | undefined {
  try {
    const saved = JSON.parse(readFileSync(join(dir, LOCAL_STACK_FILE), 'utf8')) as { gateway_url?: unknown };
    return typeof saved.gateway_url === 'string' && isLoopbackUrl(saved.gateway_url)
      ? saved.gateway_url
      : undefined;
  } catch {
    return undefined;
  }
}

export interface CliEnvironment {
  /** GATEWAY_URL; else the local stack started from the current directory (localStackUrl), else port 3000 here. */
  gatewayUrl: string;
  /** GATEWAY_API_KEY. */
  apiKey: string | undefined;
  /** ADMIN_TOKEN; without it, the development token for a gateway on localhost only. */
  adminToken: string | undefined;
  /** Where `listen` keeps its local CA and certificate: GATEWAY_CLI_TLS_DIR, else under XDG_CONFIG_HOME or ~/.config. */
  tlsDir: string;
  /** NO_COLOR (https://no-color.org) turns colours off; FORCE_COLOR=1 turns them on even when not a terminal. */
  color: 'auto' | 'never' | 'always';
}

/** Every setting the CLI takes from the environment (and `dir`'s local stack); flags override them. */
export function readEnvironment(env: NodeJS.ProcessEnv = process.env, dir = process.cwd()): CliEnvironment {
  const configHome = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  const forced = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== '';
  return {
    gatewayUrl: env.GATEWAY_URL || localStackUrl(dir) || 'http://localhost:3000',
    apiKey: env.GATEWAY_API_KEY || undefined,
    adminToken: env.ADMIN_TOKEN || undefined,
    tlsDir: env.GATEWAY_CLI_TLS_DIR || join(configHome, 'gateway-cli', 'listen-tls'),
    color: env.NO_COLOR ? 'never' : forced ? 'always' : 'auto',
  };
}
