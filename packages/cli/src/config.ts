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

export interface CliEnvironment {
  /** GATEWAY_URL; the local stack by default. */
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

/** Every setting the CLI takes from the environment; flags override them. */
export function readEnvironment(env: NodeJS.ProcessEnv = process.env): CliEnvironment {
  const configHome = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  const forced = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== '';
  return {
    gatewayUrl: env.GATEWAY_URL || 'http://localhost:3000',
    apiKey: env.GATEWAY_API_KEY || undefined,
    adminToken: env.ADMIN_TOKEN || undefined,
    tlsDir: env.GATEWAY_CLI_TLS_DIR || join(configHome, 'gateway-cli', 'listen-tls'),
    color: env.NO_COLOR ? 'never' : forced ? 'always' : 'auto',
  };
}
