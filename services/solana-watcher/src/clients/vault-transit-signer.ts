import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { inspect } from 'node:util';
import { fetch } from 'undici';
import { encodeBase58 } from '../domain/base58';
import type { TransactionSigner } from '../domain/transaction-signer';

/** Where the Transit key lives and how to reach it. The token is a secret: kept private, never printed. */
export interface VaultTransitSettings {
  /** `VAULT_ADDR`, e.g. https://vault.internal:8200 */
  address: string;
  token: string;
  /** Vault Enterprise namespace (`X-Vault-Namespace`), when the mount is in one. */
  namespace?: string;
  /** Where the Transit engine is mounted (default `transit`). */
  mount: string;
  /** The `ed25519` Transit key holding RECEIVING_WALLET's key. */
  key: string;
  /** Per request; default 10 s. */
  timeoutMs?: number;
}

/** Vault could not be reached or answered that it cannot serve now (5xx, 429, 412, ...): try again later. */
export class VaultUnavailable extends Error {
  constructor(reason: string) {
    super(`Vault is unavailable: ${reason}`);
    this.name = 'VaultUnavailable';
  }
}

/** Vault refused the request (403: token refused; 404: no such key or mount) or the key cannot sign: fix config. */
export class VaultRefused extends Error {
  constructor(
    readonly status: number | null,
    reason: string,
  ) {
    super(`Vault refused: ${reason}`);
    this.name = 'VaultRefused';
  }
}

/** Statuses Vault documents as passing (https://developer.hashicorp.com/vault/api-docs#http-status-codes). */
const TRANSIENT = new Set([412, 429, 472, 473, 500, 502, 503]);

/**
 * The refund signer backed by HashiCorp Vault's Transit secrets engine: an `ed25519` key that never leaves Vault.
 * `open` reads the key (GET /v1/{mount}/keys/{name}) for the public key of its latest version; `sign` asks
 * POST /v1/{mount}/sign/{name} for the signature of the message with that version, and checks it before use.
 * https://developer.hashicorp.com/vault/api-docs/secret/transit#read-key and #sign-data.
 */
export class VaultTransitSigner implements TransactionSigner {
  readonly #settings: VaultTransitSettings;
  readonly #verifier: KeyObject;

  private constructor(
    settings: VaultTransitSettings,
    readonly publicKey: string,
    publicKeyBytes: Uint8Array,
    private readonly keyVersion: number,
  ) {
    this.#settings = settings;
    this.#verifier = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKeyBytes).toString('base64url') },
      format: 'jwk',
    });
  }

  /** Reads the key; throws VaultUnavailable (try again) or VaultRefused (a configuration to fix). */
  static async open(settings: VaultTransitSettings): Promise<VaultTransitSigner> {
    const data = await request(settings, 'GET', `keys/${encodeURIComponent(settings.key)}`);
    const {
      type,
      derived,
      latest_version: version,
      keys,
    } = data as {
      type?: unknown;
      derived?: unknown;
      latest_version?: unknown;
      keys?: Record<string, { public_key?: unknown }>;
    };
    if (type !== 'ed25519')
      throw new VaultRefused(null, `key ${settings.key} is of type ${String(type)}, not ed25519`);
    // A derived key has a public key per context only: no one wallet.
    if (derived === true)
      throw new VaultRefused(null, `key ${settings.key} is derived: it has no single public key`);
    const publicKey = typeof version === 'number' ? keys?.[String(version)]?.public_key : undefined;
    const bytes = typeof publicKey === 'string' ? Buffer.from(publicKey, 'base64') : Buffer.alloc(0);
    if (bytes.length !== 32) throw new VaultRefused(null, `key ${settings.key} shows no ed25519 public key`);
    return new VaultTransitSigner(settings, encodeBase58(bytes), bytes, version as number);
  }

  async sign(message: Uint8Array): Promise<Uint8Array> {
    const { key } = this.#settings;
    const data = await request(this.#settings, 'POST', `sign/${encodeURIComponent(key)}`, {
      input: Buffer.from(message).toString('base64'),
      // The version whose public key is the wallet's: a rotation in Vault must not change the signing key.
      key_version: this.keyVersion,
    });
    const signature = /^vault:v\d+:([A-Za-z0-9+/=]+)$/.exec(
      String((data as { signature?: unknown }).signature),
    );
    const bytes = signature ? Buffer.from(signature[1]!, 'base64') : Buffer.alloc(0);
    if (bytes.length !== 64 || !verify(null, message, this.#verifier, bytes))
      throw new VaultUnavailable(`key ${key} answered no valid ed25519 signature`);
    return new Uint8Array(bytes);
  }

  toJSON(): { publicKey: string; vaultKey: string } {
    return { publicKey: this.publicKey, vaultKey: this.#settings.key };
  }

  toString(): string {
    return `VaultTransitSigner(${this.#settings.key}: ${this.publicKey})`;
  }

  [inspect.custom](): string {
    return this.toString();
  }
}

/**
 * One Vault API request: the token in X-Vault-Token, the namespace in X-Vault-Namespace; an answer of 400 or more
 * carries `{"errors": [...]}` (https://developer.hashicorp.com/vault/api-docs#error-response). Returns `data`.
 */
async function request(
  settings: VaultTransitSettings,
  method: 'GET' | 'POST',
  path: string,
  body?: object,
): Promise<unknown> {
  const url = `${settings.address.replace(/\/+$/, '')}/v1/${settings.mount}/${path}`;
  const headers: Record<string, string> = { 'X-Vault-Token': settings.token };
  if (settings.namespace) headers['X-Vault-Namespace'] = settings.namespace;
  if (body) headers['Content-Type'] = 'application/json';
  let response;
  try {
    response = await fetch(url, {
      method,
      headers,
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(settings.timeoutMs ?? 10_000),
    });
  } catch (err) {
    // The cause's name and code only: never the request (it carries the token).
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
    throw new VaultUnavailable(`${method} /v1/${settings.mount}/${path} failed (${cause})`);
  }
  const answer = (await response.json().catch(() => null)) as { data?: unknown; errors?: unknown } | null;
  if (response.ok && answer?.data && typeof answer.data === 'object') return answer.data;
  const errors = Array.isArray(answer?.errors) ? answer.errors.map(String).join('; ') : '';
  const reason = `${method} /v1/${settings.mount}/${path} answered ${response.status}${errors ? `: ${errors}` : ''}`;
  if (response.ok || TRANSIENT.has(response.status)) throw new VaultUnavailable(reason);
  throw new VaultRefused(response.status, reason);
}
