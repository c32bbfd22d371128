import type { Keypair } from '@solana/web3.js';
import { createPrivateKey, randomBytes, randomUUID, sign as ed25519Sign } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for HashiCorp Vault's HTTP API with the Transit secrets engine mounted, holding `ed25519` keys, as
 * Vault documents it (not as the watcher's client reads it):
 * - every request carries its token in `X-Vault-Token`; none or another: 403 `{"errors":["permission denied"]}`
 *   (https://developer.hashicorp.com/vault/api-docs#authentication, #http-status-codes);
 * - a namespace is given by `X-Vault-Namespace` or as the path's first segments, the path relative to it; a request
 *   outside the token's namespace is refused like a bad token (https://developer.hashicorp.com/vault/api-docs#namespaces);
 * - `GET /v1/{mount}/keys/{name}` answers the key's fields and, per version, its base64 public key; an unknown key 404
 *   `{"errors":[]}` (https://developer.hashicorp.com/vault/api-docs/secret/transit#read-key);
 * - `POST /v1/{mount}/sign/{name}(/{hash_algorithm})` with `{"input": base64}` (and optionally `key_version`) answers
 *   `{"data":{"signature":"vault:v{version}:{base64}"}}`; ed25519 signs the input itself, no hash
 *   (https://developer.hashicorp.com/vault/api-docs/secret/transit#sign-data);
 * - every error is `{"errors":[...]}` with its status (https://developer.hashicorp.com/vault/api-docs#error-response).
 * `sealed` answers 503 `Vault is sealed` to everything, as a sealed Vault does.
 */
export interface VaultTransitStandIn {
  /** What VAULT_ADDR is set to. */
  url: string;
  token: string;
  namespace: string | undefined;
  mount: string;
  /** Adds an ed25519 key of these key pairs (one version each, in order); returns its name. */
  addKey(name: string, versions: Keypair[]): string;
  /** Every request received: method, path after /v1/ (namespace included) and the headers that matter. */
  requests: Array<{ method: string; path: string; namespace?: string; body?: unknown }>;
  sealed: boolean;
  close(): Promise<void>;
}

interface TransitKey {
  versions: Array<{ keypair: Keypair; created: Date }>;
}

export async function startVaultTransit(
  options: { namespace?: string; mount?: string } = {},
): Promise<VaultTransitStandIn> {
  const token = `hvs.${randomBytes(18).toString('base64url')}`;
  const namespace = options.namespace?.replace(/^\/+|\/+$/g, '');
  const mount = options.mount ?? 'transit';
  const keys = new Map<string, TransitKey>();
  const stand: VaultTransitStandIn = {
    url: '',
    token,
    namespace,
    mount,
    requests: [],
    sealed: false,
    addKey(name, versions) {
      keys.set(name, { versions: versions.map((keypair) => ({ keypair, created: new Date() })) });
      return name;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  const answer = (res: ServerResponse, status: number, body: object) =>
    res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  const fail = (res: ServerResponse, status: number, ...errors: string[]) => answer(res, status, { errors });
  const ok = (res: ServerResponse, data: object) =>
    answer(res, 200, {
      request_id: randomUUID(),
      lease_id: '',
      renewable: false,
      lease_duration: 0,
      data,
      wrap_info: null,
      warnings: null,
      auth: null,
      mount_type: 'transit',
    });

  const handle = (req: IncomingMessage, body: string, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://vault');
    const header = req.headers['x-vault-namespace'];
    const nsHeader = typeof header === 'string' ? header.replace(/^\/+|\/+$/g, '') : undefined;
    let parsed: unknown;
    try {
      parsed = body ? JSON.parse(body) : undefined;
    } catch {
      return fail(res, 400, 'failed to parse JSON input');
    }
    stand.requests.push({
      method: req.method ?? '',
      path: url.pathname.replace(/^\/v1\//, ''),
      namespace: nsHeader,
      body: parsed,
    });
    if (stand.sealed) return fail(res, 503, 'Vault is sealed');
    if (!url.pathname.startsWith('/v1/')) return fail(res, 404, 'unsupported path');
    if (req.headers['x-vault-token'] !== token) return fail(res, 403, 'permission denied');
    // The full path, namespace first; the token (and its mount) live in `namespace`, nothing else.
    const full = [nsHeader, url.pathname.slice('/v1/'.length)].filter(Boolean).join('/');
    const prefix = namespace ? `${namespace}/` : '';
    if (!full.startsWith(`${prefix}${mount}/`)) return fail(res, 403, 'permission denied');
    const [operation, name, algorithm, ...rest] = full.slice(`${prefix}${mount}/`.length).split('/');
    const key = name ? keys.get(decodeURIComponent(name)) : undefined;

    if (operation === 'keys' && name && algorithm === undefined) {
      if (req.method !== 'GET') return fail(res, 405, 'unsupported operation');
      if (!key) return fail(res, 404);
      return ok(res, readKey(decodeURIComponent(name), key));
    }
    if (operation === 'sign' && name && rest.length === 0) {
      if (req.method !== 'POST' && req.method !== 'PUT') return fail(res, 405, 'unsupported operation');
      if (!key) return fail(res, 400, 'encryption key not found');
      const { input, key_version: version = 0 } = (parsed ?? {}) as {
        input?: unknown;
        key_version?: unknown;
      };
      if (typeof input !== 'string' || input === '') return fail(res, 400, 'missing input');
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(input) || input.length % 4 !== 0)
        return fail(res, 400, 'unable to decode input as base64: illegal base64 data');
      const latest = key.versions.length;
      const used = Number(version) || latest;
      if (!Number.isInteger(used) || used < 1 || used > latest)
        return fail(res, 400, 'requested version for signing is higher than the latest key version');
      const signature = sign(key.versions[used - 1]!.keypair, Buffer.from(input, 'base64'));
      return ok(res, { signature: `vault:v${used}:${signature.toString('base64')}`, key_version: used });
    }
    return fail(res, 404, `unsupported path`);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(req, Buffer.concat(chunks).toString('utf8'), res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stand.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return stand;
}

/** What Transit's read-key answers for an ed25519 key (its formatKeyPolicy), public keys base64 per version. */
function readKey(name: string, key: TransitKey): object {
  return {
    name,
    type: 'ed25519',
    derived: false,
    deletion_allowed: false,
    exportable: false,
    allow_plaintext_backup: false,
    min_available_version: 0,
    min_decryption_version: 1,
    min_encryption_version: 0,
    latest_version: key.versions.length,
    supports_encryption: false,
    supports_decryption: false,
    supports_derivation: true,
    supports_signing: true,
    auto_rotate_period: 0,
    imported_key: false,
    keys: Object.fromEntries(
      key.versions.map(({ keypair, created }, index) => [
        String(index + 1),
        {
          name: 'ed25519',
          public_key: Buffer.from(keypair.publicKey.toBytes()).toString('base64'),
          certificate_chain: '',
          creation_time: created.toISOString(),
        },
      ]),
    ),
  };
}

function sign(keypair: Keypair, message: Buffer): Buffer {
  // Ed25519 from the key pair's seed: deterministic, the signature Vault's Go ed25519 makes of the same input.
  const key = createPrivateKey({
    key: {
      kty: 'OKP',
      crv: 'Ed25519',
      d: Buffer.from(keypair.secretKey.subarray(0, 32)).toString('base64url'),
      x: Buffer.from(keypair.publicKey.toBytes()).toString('base64url'),
    },
    format: 'jwk',
  });
  return ed25519Sign(null, message, key);
}
